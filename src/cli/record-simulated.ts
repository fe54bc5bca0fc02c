import { resolve } from 'node:path';
import { InvalidInputError } from '../core/index.js';
import { DEFAULT_SIMULATED_SEED, writeSimulatedRecording } from '../lab/simulated-recording.js';
import { altnameOf } from '../lab/sweep/index.js';
import { loadSettings } from '../daemon/settings-file.js';

export interface RecordSimulatedOptions {
  readonly config?: string;
  readonly out: string;
  readonly minutes?: string;
  readonly seed?: string;
}

/**
 * `makerd record --simulated`: the simulator's default flow, polled at the paper config's cadence,
 * as a recording of the config's pairs (src/lab/simulated-recording.ts). No exchange, no Redis.
 */
export async function recordSimulated(
  opts: RecordSimulatedOptions,
  out: NodeJS.WriteStream = process.stdout,
): Promise<void> {
  const minutes = Number(opts.minutes);
  if (opts.minutes === undefined || !(minutes > 0 && minutes <= 7 * 24 * 60)) {
    throw new InvalidInputError(
      '--minutes',
      `with --simulated, give the recording's length in minutes (up to a week), got ${opts.minutes ?? 'nothing'}`,
    );
  }
  const seed = opts.seed === undefined ? DEFAULT_SIMULATED_SEED : Number(opts.seed);
  if (!Number.isSafeInteger(seed)) {
    throw new InvalidInputError('--seed', `must be a whole number, got ${opts.seed}`);
  }
  const { settings } = loadSettings(opts.config);
  const pairs = settings.pairs.map((p) => altnameOf(p.pair));
  const dir = resolve(opts.out);
  const started = performance.now();
  const stats = await writeSimulatedRecording(dir, {
    pairs,
    durationMs: Math.round(minutes * 60_000),
    seed,
  });
  out.write(
    `recorded ${minutes} simulated minute(s) of ${pairs.join(', ')} (seed ${seed}) in ${dir}: ` +
      `${stats.rows} rows, ${stats.files} files, ${Math.round(stats.bytes / 1024)} KB, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
