/**
 * Entry of the benchmark's steal sampler (host-steal.ts, startStealSampler): reads /proc/stat every
 * SAMPLE_MS and prints a line `<wall ms> <cpu> <ticks>` each time the steal counted on a CPU has
 * grown, until its stdin closes (the benchmark ended, however it ended).
 */
import { performance } from 'node:perf_hooks';
import { SAMPLE_MS, readSteal } from './host-steal.js';

let last = readSteal();
if (last === undefined) process.exit(0);
setInterval(() => {
  const now = readSteal();
  if (now === undefined || last === undefined) return;
  const atMs = performance.timeOrigin + performance.now();
  now.ticks.forEach((ticks, cpu) => {
    const grown = ticks - (last?.ticks[cpu] ?? ticks);
    if (grown > 0) process.stdout.write(`${atMs.toFixed(1)} ${cpu} ${grown}\n`);
  });
  last = now;
}, SAMPLE_MS);
process.stdin.on('error', () => undefined);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
