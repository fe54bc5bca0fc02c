import type { SimContext } from '../context.js';
import type { Route } from '../http/route.js';
import { accountRoutes } from './account.js';
import { accountsAdminRoutes } from './accounts-admin.js';
import { custodyRoutes } from './custody.js';
import { earnRoutes } from './earn.js';
import { exportRoutes } from './exports.js';
import { fundingRoutes } from './funding.js';
import { futuresRoutes } from './futures.js';
import { level3Routes } from './level3.js';
import { nftRoutes } from './nft.js';
import { otcRoutes } from './otc.js';
import { payRoutes } from './pay.js';
import { publicRoutes } from './public.js';
import { tradingRoutes } from './trading.js';
import { withdrawInfoRoutes } from './withdraw-info.js';

/** Every route of both spec documents, as one list for the server's router. */
export function routesFor(ctx: SimContext): Route[] {
  return [
    publicRoutes,
    level3Routes,
    tradingRoutes,
    accountRoutes,
    fundingRoutes,
    accountsAdminRoutes,
    earnRoutes,
    exportRoutes,
    nftRoutes,
    otcRoutes,
    payRoutes,
    withdrawInfoRoutes,
    futuresRoutes,
    custodyRoutes,
  ].flatMap((routes) => routes(ctx));
}
