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
// Not --always-sparkplug (baseline machine code for every function as its module loads): it
//   took the start-up burst's first edits off interpreted code (lower p50 in seven interleaved
//   pairs of 30-60 s starter runs, where the burst weighs most), but made the steady state slower:
//   in three interleaved pairs of 150 s starter runs of the executor benchmark (2026-11-26), p50
//   after the first 10 s 1.47-1.52 ms with it against 1.33-1.39 without, and lower without in
//   each pair over the whole run too; a daemon lives in its steady state. It also cost ~30 MB.
export const V8_FLAGS = ['--no-lazy', '--interrupt-budget=8192'];
