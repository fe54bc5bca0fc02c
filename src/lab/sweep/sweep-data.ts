import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError, MakerdError } from '../../core/index.js';
import { DEFAULT_PAIRS } from '../../sim/defaults.js';
import { RecordingReader } from '../../recording/index.js';
import { writeSimulatedRecording } from '../simulated-recording.js';
import { scanRecording } from '../replay/index.js';
import type { LoadedSweepFile, SimulatedData } from './sweep-file.js';
import type { SweepPhase } from './sweep-job.js';

/** Beside a simulated recording: what it is, so a later sweep reuses it only if it is the same. */
const MARKER = 'simulated.json';

/**
 * The sweep's recording: the file's folder, or the simulated flow in `<sweepDir>/recording`
 * (synthesised the first time).
 */
export async function sweepRecording(
  file: LoadedSweepFile,
  sweepDir: string,
  pairs: readonly string[],
  say: (line: string) => void,
): Promise<string> {
  if (file.dataDir !== undefined) return file.dataDir;
  const dir = join(sweepDir, 'recording');
  await simulatedRecording(dir, file.sweep.data as SimulatedData, pairs, say);
  return dir;
}

/** The part of the recording a phase replays, and its length. */
export function phaseRange(
  phase: SweepPhase,
  span: { readonly firstMs: number; readonly lastMs: number },
  splitMs: number | undefined,
): { readonly fromMs?: number; readonly toMs?: number; readonly spanMs: number } {
  const split = splitMs ?? span.lastMs;
  if (phase === 'in_sample') return { toMs: split - 1, spanMs: split - span.firstMs };
  if (phase === 'out_of_sample') return { fromMs: split, spanMs: span.lastMs - split };
  return { spanMs: span.lastMs - span.firstMs };
}

/**
 * The simulator's default flow for `data: { simulated: ... }`, synthesised into `dir` the first
 * time and reused after (the same minutes, seed and pairs); a folder holding anything else is
 * refused rather than overwritten.
 */
export async function simulatedRecording(
  dir: string,
  data: SimulatedData,
  configPairs: readonly string[],
  say: (line: string) => void,
): Promise<void> {
  const pairs = configPairs.map((name, i) => {
    const known = DEFAULT_PAIRS.find((p) => [p.id, p.altname, p.wsname].includes(name));
    if (known === undefined) {
      throw new InvalidInputError(
        `pairs[${i}].pair`,
        `${name} is not a pair of the simulator, so it cannot be simulated (it has ${DEFAULT_PAIRS.map((p) => p.altname).join(', ')})`,
      );
    }
    return known.altname;
  });
  const wanted = { minutes: data.simulated.minutes, seed: data.simulated.seed, pairs };
  const markerPath = join(dir, MARKER);
  if (existsSync(markerPath)) {
    const found = readFileSync(markerPath, 'utf8');
    if (found.trim() === JSON.stringify(wanted)) {
      say(`sweep: reusing the simulated recording in ${dir}`);
      return;
    }
    throw new InvalidInputError(
      'sweep.data',
      `${dir} holds another simulated recording (${found.trim()}); remove it or give another --out`,
    );
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new InvalidInputError(
      'sweep.data',
      `${dir} exists and is not a finished simulated recording; remove it or give another --out`,
    );
  }
  say(`sweep: synthesising ${data.simulated.minutes} min of the simulator's flow into ${dir}`);
  await writeSimulatedRecording(dir, {
    pairs,
    durationMs: Math.round(data.simulated.minutes * 60_000),
    seed: data.simulated.seed,
  });
  writeFileSync(markerPath, `${JSON.stringify(wanted)}\n`);
}

/** The recording's first and last row of these pairs (one read through it). */
export async function recordingSpan(
  dir: string,
  pairs: readonly string[],
): Promise<{ readonly firstMs: number; readonly lastMs: number }> {
  const reader = new RecordingReader(dir);
  if (reader.pairs().length === 0) {
    throw new InvalidInputError(
      'sweep.data',
      `${dir} holds no recording (no pair folder of .jsonl.gz files)`,
    );
  }
  try {
    const scan = await scanRecording(reader.rows({ pairs }));
    return { firstMs: scan.firstMs, lastMs: scan.lastMs };
  } catch (err) {
    if (err instanceof MakerdError && err.code === 'RECORDING_MISSING_PAIR') {
      throw new InvalidInputError('sweep.data', err.message);
    }
    throw err;
  }
}
