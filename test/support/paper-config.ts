/**
 * config/paper.yaml made fit for a test: one pair, the test's Redis under a fresh prefix, the
 * simulator's config by absolute path, and the pair's strategy given, by default a spread that
 * trades within a minute of the simulator's flow: 10 bps each side with the fee floor off, so it
 * knowingly quotes inside the maker fee (the paper config's own settings trade a few times an
 * hour, too seldom for a test of the machinery around the fills).
 */
import { readFileSync } from 'node:fs';
import { freshPrefix, REDIS_URL } from './redis.js';

export const TRADING_SPREAD = [
  '    strategy:',
  '      name: spread',
  "      options: { min_spread_bps: 20, levels: 2, order_size: '0.01', fee_floor: false }",
];

/** The paper account's pairs, each quoted by a spread that trades often (its order size). */
export const BOTH_PAIRS_TRADING = [
  { pair: 'XBTUSD', strategy: TRADING_SPREAD },
  { pair: 'ETHUSD', strategy: TRADING_SPREAD.map((l) => l.replace("'0.01'", "'0.2'")) },
];

export function paperConfigText(
  options: {
    pair?: string;
    strategy?: readonly string[];
    /** Several pairs instead of `pair` and `strategy`. */
    pairs?: readonly { pair: string; strategy: readonly string[] }[];
    prefix?: string;
  } = {},
): { text: string; prefix: string } {
  const prefix = options.prefix ?? freshPrefix();
  const paper = readFileSync(new URL('../../config/paper.yaml', import.meta.url), 'utf8');
  const entries = options.pairs ?? [
    { pair: options.pair ?? 'XBTUSD', strategy: options.strategy ?? TRADING_SPREAD },
  ];
  const pairs = [
    'pairs:',
    ...entries.flatMap((e) => [`  - pair: ${e.pair}`, ...e.strategy]),
    '',
    '',
  ].join('\n');
  const text = paper
    .replace(
      /^redis:\n {2}url: .*\n {2}prefix: .*$/m,
      `redis:\n  url: ${REDIS_URL}\n  prefix: ${prefix}`,
    )
    .replace(/^pairs:\n[\s\S]*?(?=^# Polls)/m, pairs)
    .replace(
      'sim_config: sim.yaml',
      `sim_config: ${new URL('../../config/sim.yaml', import.meta.url).pathname}`,
    );
  return { text, prefix };
}
