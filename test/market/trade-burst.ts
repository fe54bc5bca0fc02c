/**
 * Public trades on the simulator's tape all at once: one resting ask and `n` takers hitting it,
 * placed on the engine directly (as the simulator's own participants trade), so a burst costs no
 * order-entry budget and lands between two polls.
 */
import { Decimal } from '../../src/core/index.js';
import { limitSpec } from '../../src/sim/engine/limit-spec.js';
import type { Account } from '../../src/sim/state/accounts.js';
import type { TestSim } from '../support/sim.js';

/** Prints `n` trades of 0.001 at 50000 on `pairName`; resolves their trade ids, oldest first. */
export function burst(sim: TestSim, n: number, pairName = 'XBTUSD'): number[] {
  const pair = sim.ctx.markets.requirePair(pairName);
  const account = (): Account => sim.ctx.accounts.get(sim.addAccount().apiKey) as Account;
  const maker = account();
  const taker = account();
  const size = new Decimal('0.001');
  const price = new Decimal('50000');
  const before = sim.ctx.history.prints(pair).length;
  sim.ctx.engine.place(maker, limitSpec(pair, 'sell', size.times(n), price, 'GTC'));
  for (let i = 0; i < n; i++) {
    sim.ctx.engine.place(taker, limitSpec(pair, 'buy', size, price, 'IOC'));
  }
  const printed = sim.ctx.history.prints(pair).slice(before);
  if (printed.length !== n) throw new Error(`burst: ${printed.length} prints, not ${n}`);
  return printed.map((p) => p.trade.tradeId);
}
