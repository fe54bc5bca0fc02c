/**
 * Encodes the module map of DESIGN.md §2: imports point one way only. A violation here is a
 * design bug, not a style nit.
 */
const allowed = {
  core: [],
  exchange: ['core'],
  sim: ['core', 'exchange/limits'],
  market: ['core', 'exchange'],
  bus: ['core'],
  runner: ['core', 'market', 'bus'],
  orders: ['core', 'exchange', 'bus'],
  executor: ['core', 'exchange', 'bus', 'orders'],
  safety: ['core', 'exchange', 'bus'],
  obs: ['core'],
  pnl: ['core'],
  // What `makerd record` and a daemon's `record:` write, and what the lab reads back.
  recording: ['core', 'exchange', 'market', 'orders'],
  lab: [
    'core',
    'exchange',
    'sim',
    'market',
    'bus',
    'runner',
    'executor',
    'orders',
    'pnl',
    'obs',
    'safety',
    'daemon',
    'recording',
  ],
  // The assembled deployment: everything below the console and cli; the replay (src/lab)
  // assembles the daemon, never the other way round. A process's HTTP endpoint is the console's:
  // cli hands it to runRoles (daemon/run-roles.ts, HttpDoor), so the daemon never imports it.
  daemon: [
    'core',
    'exchange',
    'market',
    'bus',
    'runner',
    'executor',
    'orders',
    'safety',
    'obs',
    'pnl',
    'sim',
    'recording',
    // The page's data contract: types only, so the runner's report and the page agree.
    'console/state',
  ],
  // The operator's HTTP side: each process's endpoint (status, control, the console's stream) and
  // the client of `--http` commands. Only cli imports it (the daemon only its page's data
  // contract, console/state.ts).
  console: ['core', 'obs', 'daemon', 'orders', 'bus', 'safety'],
};

const forbidden = Object.entries(allowed).map(([from, to]) => {
  const ok = [from, ...to].map((m) => `^src/${m}(/|\\.ts$)`).join('|');
  return {
    name: `${from}-imports`,
    comment: `src/${from} may import only: ${[from, ...to].join(', ')} (DESIGN.md §2)`,
    severity: 'error',
    from: { path: `^src/${from}/` },
    to: { path: '^src/', pathNot: ok },
  };
});

module.exports = {
  forbidden: [
    ...forbidden,
    {
      name: 'no-cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'strategies-see-the-strategy-api-only',
      severity: 'error',
      from: { path: '^strategies/' },
      to: { path: '^src/', pathNot: '^src/runner/strategy-api' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
