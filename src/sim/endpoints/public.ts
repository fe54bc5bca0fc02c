import type { SimContext } from '../context.js';
import type { Route } from '../http/route.js';
import { marketRoutes } from './public-market.js';
import { referenceRoutes } from './public-reference.js';

/** Every `/0/public/*` route but the NFT reads. */
export function publicRoutes(_ctx: SimContext): Route[] {
  return [...referenceRoutes(), ...marketRoutes()];
}
