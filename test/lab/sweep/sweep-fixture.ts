import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { writeSimulatedRecording } from '../../../src/lab/simulated-recording.js';
import { paperConfigText } from '../../support/paper-config.js';

export const START_MS = Date.UTC(2026, 10, 1);

/** Two minutes of the simulator's flow on XBTUSD, as `makerd record --simulated` writes it. */
export async function recordXbt(dir: string, minutes = 2): Promise<void> {
  await writeSimulatedRecording(dir, {
    pairs: ['XBTUSD'],
    startMs: START_MS,
    durationMs: minutes * 60_000,
  });
}

/** The paper config with XBTUSD alone, quoted by a spread that trades often; returns its path. */
export function writePaperConfig(dir: string, name = 'bot.yaml'): { file: string; prefix: string } {
  const { text, prefix } = paperConfigText();
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
