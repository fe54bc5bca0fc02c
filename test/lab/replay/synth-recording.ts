import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ReplayClock } from '../../../src/lab/replay/index.js';
import {
  KEY_FOLDER,
  RECORDING_VERSION,
  encodeRow,
  segmentPath,
  type RecordedEndpoint,
  type RecordedRow,
  type RecordingHeader,
} from '../../../src/lab/recording/format.js';
import { routesFor } from '../../../src/sim/endpoints/index.js';
import { toJson } from '../../../src/sim/http/json.js';
import { Router } from '../../../src/sim/http/router.js';
import { SimServer } from '../../../src/sim/http/server.js';
import { createSimContext } from '../../../src/sim/simulator.js';

/** The paper config's cadence (config/paper.yaml), as a recorder beside it would poll. */
export const PAPER_INTERVALS_MS: Readonly<Partial<Record<RecordedEndpoint, number>>> = {
  Depth: 1_500,
  Trades: 10_000,
  SystemStatus: 5_000,
};
/** Time from asking to the answer, as a recorder on a good link would see it. */
const ROUND_TRIP_MS = 20;
const STEP_MS = 250;

export interface SynthOptions {
  readonly pairs: readonly string[];
  readonly startMs: number;
  readonly durationMs: number;
  readonly seed?: number;
  /** Background takers per second (the simulator's default is 1.5). */
  readonly takersPerSec?: number;
}

/**
 * A recording as `makerd record` would write it of a simulated market: a source simulator with its
 * background market on, on a ManualClock, asked for AssetPairs once and Depth, Trades and
 * SystemStatus at the paper config's cadence; each answer's body is the text the server sent.
 */
export async function synthesiseRecording(options: SynthOptions): Promise<RecordedRow[]> {
  const clock = new ReplayClock(options.startMs);
  const { ctx, runTicks } = createSimContext({
    clock,
    idSeed: options.seed ?? 7,
    config: {
      background: {
        seed: options.seed ?? 7,
        ...(options.takersPerSec === undefined ? {} : { takers_per_sec: options.takersPerSec }),
      },
      enforce_limits: false,
    },
  });
  const router = new Router();
  router.add(routesFor(ctx));
  const server = new SimServer(ctx, router, runTicks);
  const rows: RecordedRow[] = [];
  const ask = async (endpoint: RecordedEndpoint, query: string, pair?: string): Promise<void> => {
    const askedMs = clock.now();
    const answer = await server.handle({
      method: 'GET',
      target: `/0/public/${endpoint}${query}`,
      headers: { 'user-agent': 'synth' },
      rawBody: Buffer.alloc(0),
      clientId: 'synth',
      traceId: 'synth',
    });
    rows.push({
      askedMs,
      receivedMs: askedMs + ROUND_TRIP_MS,
      endpoint,
      pair,
      body: toJson(answer.body),
    });
  };
  runTicks(clock.now());
  await ask('AssetPairs', '');
  const since = new Map<string, string>();
  const due = new Map<string, number>();
  const end = options.startMs + options.durationMs;
  while (clock.now() < end) {
    const now = clock.now();
    for (const [endpoint, every] of Object.entries(PAPER_INTERVALS_MS)) {
      const targets = endpoint === 'SystemStatus' ? [undefined] : options.pairs;
      for (const pair of targets) {
        const id = `${endpoint}:${pair ?? ''}`;
        if ((due.get(id) ?? now) > now) continue;
        due.set(id, now + every);
        if (endpoint === 'Depth') await ask('Depth', `?pair=${pair}&count=25`, pair);
        else if (endpoint === 'SystemStatus') await ask('SystemStatus', '');
        else {
          const cursor = since.get(pair as string);
          await ask(
            'Trades',
            `?pair=${pair}${cursor === undefined ? '' : `&since=${cursor}`}`,
            pair,
          );
          const body = JSON.parse((rows[rows.length - 1] as RecordedRow).body as string) as {
            result: { last: string };
          };
          since.set(pair as string, body.result.last);
        }
      }
    }
    clock.jumpTo(clock.now() + STEP_MS);
    runTicks(clock.now());
  }
  return rows;
}

/** Writes rows as recording files (one per pair or key folder, per hour) under `dir`. */
export function writeRecording(dir: string, rows: readonly RecordedRow[]): void {
  const files = new Map<string, { header: RecordingHeader; lines: string[] }>();
  const session = rows[0]?.receivedMs ?? 0;
  for (const row of rows) {
    const folder = row.pair ?? KEY_FOLDER;
    const path = segmentPath(folder, row.receivedMs, session);
    let file = files.get(path);
    if (file === undefined) {
      file = {
        header: {
          makerd_recording: RECORDING_VERSION,
          pair: folder,
          sessionStartMs: session,
          intervalsMs: PAPER_INTERVALS_MS,
          tier: 'starter',
        },
        lines: [],
      };
      files.set(path, file);
    }
    file.lines.push(encodeRow(row));
  }
  for (const [path, file] of files) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    const text = `${JSON.stringify(file.header)}\n${file.lines.join('')}`;
    writeFileSync(join(dir, path), gzipSync(text));
  }
}

/** Rows as the replay takes them (an AsyncIterable, as the recording reader gives them). */
export function fromArray(rows: readonly RecordedRow[]): AsyncIterable<RecordedRow> {
  return {
    [Symbol.asyncIterator]: () => {
      let i = 0;
      return {
        next: () =>
          Promise.resolve(
            i < rows.length
              ? { done: false, value: rows[i++] as RecordedRow }
              : { done: true, value: undefined },
          ),
      };
    },
  };
}
