// V8 settings makerd runs with, set by bin/makerd.js before the daemon's modules load.
// `npm run bench:executor` passes the same ones to node (test/ops/v8-flags.test.ts keeps them so).
//
// --no-lazy: every function of the modules loaded from then on is compiled as its module loads,
//   not on its first call. A process's first orders otherwise paid for compiling the whole path
//   to the wire (first AddOrderBatch 5.8-9.4 ms from its snapshot in the executor benchmark, 3.0 ms
//   with it). Costs ~15 MB of memory and ~0.2 s at start.
// --interrupt-budget=8192 (V8's default 67584): a function is optimized (TurboFan) after about an
//   eighth of the bytecode run. The way to the wire runs about once a second per pair on the
//   starter tier, so with the default its functions were still being optimized minutes into a
//   run (traced with --trace-opt: the strategy, rounding, the client's checks and form encoding
//   100-130 s in); tick-to-wire p50 on starter 0.90-1.07 ms with it against 0.97-1.22 ms
//   without, in five interleaved pairs of 150 s runs. Costs more optimizing on V8's background
//   threads, early in a run.
// --always-sparkplug: every function gets V8's baseline machine code (Sparkplug) as soon as it
//   has bytecode (with --no-lazy: as its module loads) instead of being interpreted until it has
//   run a while. The start-up burst ran interpreted: each stage of the first edits 3-5 times its
//   warm time (the runner's tick 0.6-0.7 ms against 0.18, signing 0.43-0.54 against 0.12-0.14),
//   ~3.5-4 ms from snapshot to wire. In interleaved starter runs of the executor benchmark
//   (2026-11-26) tick-to-wire p50 was lower with it in each of seven pairs (30 s: 1.53-1.80 ms
//   against 2.11-2.55; 60 s: 1.54-1.59 against 1.66-1.79), and the first edits left the list
//   of the slowest samples. Costs ~30 MB of memory (maximum RSS 233-242 MB against 208-214 in a
//   15 s demo) and ~0.1-0.2 s at start.
export const V8_FLAGS = ['--no-lazy', '--interrupt-budget=8192', '--always-sparkplug'];
