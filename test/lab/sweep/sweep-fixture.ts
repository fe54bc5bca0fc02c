import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeSimulatedRecording } from '../../../src/lab/recording/index.js';
import { REDIS_URL, freshPrefix } from '../../support/redis.js';

export const START_MS = Date.UTC(2026, 10, 1);

/** Two minutes of the simulator's flow on XBTUSD, as `makerd record --simulated` writes it. */
export async function recordXbt(dir: string, minutes = 2): Promise<void> {
  await writeSimulatedRecording(dir, {
    pairs: ['XBTUSD'],
    startMs: START_MS,
    durationMs: minutes * 60_000,
  });
}

/** The paper config with XBTUSD alone, this test's Redis and a fresh prefix; returns its path. */
export function writePaperConfig(dir: string, name = 'bot.yaml'): { file: string; prefix: string } {
  const prefix = freshPrefix();
  const paper = readFileSync(new URL('../../../config/paper.yaml', import.meta.url), 'utf8');
  const text = paper
    .replace(
      /^redis:\n {2}url: .*\n {2}prefix: .*$/m,
      `redis:\n  url: ${REDIS_URL}\n  prefix: ${prefix}`,
    )
    .replace(/^ {2}- pair: ETHUSD[\s\S]*?(?=^market:)/m, '')
    .replace(
      'sim_config: sim.yaml',
      `sim_config: ${new URL('../../../config/sim.yaml', import.meta.url).pathname}`,
    );
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, prefix };
}

/** A stream that keeps what is written to it. */
export function sink(): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return Object.assign(stream as unknown as NodeJS.WriteStream, { text: () => text });
}
