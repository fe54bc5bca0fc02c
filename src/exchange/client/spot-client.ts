import { InvalidInputError, systemClock, type Clock } from '../../core/index.js';
import * as E from '../endpoints/index.js';
import type { Endpoint, Family } from '../endpoints/define.js';
import { RestLimiter } from '../limits/rest-limiter.js';
import { parseTier, type Tier } from '../limits/tiers.js';
import { InProcessNonceSource } from '../nonce/in-process.js';
import type { NonceSource } from '../nonce/nonce-source.js';
import type { PairRulesBook } from '../pair-rules.js';
import { Credentials, type CredentialsInput } from '../signing/credentials.js';
import {
  custodySigner,
  futuresSigner,
  spotSigner,
  type RequestSigner,
} from '../signing/signers.js';
import { HttpTransport } from '../transport/http-transport.js';
import type { Transport, TransportOptions } from '../transport/types.js';
import {
  CallPipeline,
  type ApiResponse,
  type CallOptions,
  type RetryPolicy,
} from './call-pipeline.js';
import { KeyGuard } from './key-guard.js';
import { KeyTurns } from './key-turns.js';

export interface SpotClientOptions {
  /** The API host without the `/0` prefix, e.g. `https://api.example.com` or the simulator's URL. */
  readonly baseUrl: string;
  /** The futures host; defaults to baseUrl. */
  readonly futuresUrl?: string;
  readonly credentials?: CredentialsInput | Credentials;
  readonly futuresCredentials?: CredentialsInput | Credentials;
  readonly custodyCredentials?: CredentialsInput | Credentials;
  /** Sets the REST counter model; the safest (lowest) tier unless told otherwise. */
  readonly tier?: string;
  /** Spot nonces; pass a RedisNonceSource when several processes share the key. */
  readonly nonceSource?: NonceSource;
  readonly futuresNonceSource?: NonceSource;
  readonly custodyNonceSource?: NonceSource;
  /**
   * The spot key's nonce window as set at the exchange, in ms (our nonces count milliseconds).
   * 0 (default): the key's private calls go one at a time, each drawing its nonce once the one
   * before has been answered, so the exchange never sees them out of order. Above 0: they
   * overlap, and may arrive out of order within the window. Futures and custody keys, whose
   * documents declare no window, always go one at a time.
   */
  readonly nonceWindow?: number;
  readonly clock?: Clock;
  /**
   * The HTTP settings (timeouts, connections, user agent), or a transport of the caller's (the
   * recorder wraps one; replay answers in-process). A transport passed in is not closed by us.
   */
  readonly transport?: TransportOptions | Transport;
  readonly retry?: Partial<RetryPolicy>;
  /** Points of the REST counter never used. */
  readonly restHeadroom?: number;
  /** `false` disables client-side REST pacing (tests of the exchange's own limiter). */
  readonly restLimiter?: RestLimiter | false;
  /** When given, orders are checked against tick size, lot, ordermin and costmin before sending. */
  readonly pairRules?: PairRulesBook;
  /** Consecutive `EAPI:Invalid key` answers after which the client stops sending. */
  readonly keyGuardThreshold?: number;
  readonly signers?: {
    readonly spot?: RequestSigner;
    readonly futures?: RequestSigner;
    readonly custody?: RequestSigner;
  };
  /** Paths the spec does not show (NftPlaceOffer) or that a venue moved, by endpoint name. */
  readonly pathOverrides?: Readonly<Record<string, string>>;
}

type Res<T> = Promise<ApiResponse<T>>;
type R<Ep> = Ep extends Endpoint<infer _Q, infer S> ? Res<S> : never;
type Q<Ep> = Ep extends Endpoint<infer Req, infer _S> ? Req : never;

/**
 * The typed client for the whole spec: one method per endpoint, named after it in lowerCamelCase.
 * Every method returns `{ result, warnings, traceId }` or throws a typed error (see errors/).
 */
export class SpotClient {
  readonly #pipeline: CallPipeline;
  readonly #transport: Transport;
  readonly #ownsTransport: boolean;
  readonly #keyGuard: KeyGuard;
  readonly limiter: RestLimiter | undefined;
  readonly tier: Tier;

  constructor(options: SpotClientOptions) {
    const clock = options.clock ?? systemClock;
    const baseUrl = checkUrl(options.baseUrl, 'baseUrl');
    const futuresUrl =
      options.futuresUrl === undefined ? baseUrl : checkUrl(options.futuresUrl, 'futuresUrl');
    this.tier = parseTier(options.tier ?? 'starter');
    const nonceWindow = checkNonceWindow(options.nonceWindow ?? 0);
    this.limiter =
      options.restLimiter === false
        ? undefined
        : (options.restLimiter ??
          new RestLimiter({ tier: this.tier, clock, headroom: options.restHeadroom ?? 0 }));
    this.#keyGuard = new KeyGuard(options.keyGuardThreshold ?? 3);
    const given = options.transport;
    this.#ownsTransport = !isTransport(given);
    this.#transport = isTransport(given) ? given : new HttpTransport(given);
    const urls: Record<Family, string> = {
      public: baseUrl,
      private: baseUrl,
      futures: futuresUrl,
      custody: baseUrl,
    };
    this.#pipeline = new CallPipeline({
      urls,
      auth: {
        private: {
          credentials: credentialsOf(options.credentials, 'credentials'),
          signer: options.signers?.spot ?? spotSigner,
          nonces: options.nonceSource ?? new InProcessNonceSource({ clock }),
          turns: nonceWindow === 0 ? new KeyTurns() : undefined,
        },
        futures: {
          credentials: credentialsOf(options.futuresCredentials, 'futuresCredentials'),
          signer: options.signers?.futures ?? futuresSigner,
          nonces: options.futuresNonceSource ?? new InProcessNonceSource({ clock }),
          turns: new KeyTurns(),
        },
        custody: {
          credentials: credentialsOf(options.custodyCredentials, 'custodyCredentials'),
          signer: options.signers?.custody ?? custodySigner,
          nonces: options.custodyNonceSource ?? new InProcessNonceSource({ clock }),
          turns: new KeyTurns(),
        },
      },
      transport: this.#transport,
      limiter: this.limiter,
      pairRules: options.pairRules,
      keyGuard: this.#keyGuard,
      retry: { retries: 3, baseDelayMs: 200, maxDelayMs: 5_000, ...options.retry },
      clock,
      pathOverrides: options.pathOverrides ?? {},
      random: Math.random,
    });
  }

  /** Calls any catalogue endpoint; the named methods below are this with types filled in. */
  call<Req, Out>(
    endpoint: Endpoint<Req, Out>,
    req: Req,
    opts?: CallOptions,
  ): Promise<ApiResponse<Out>> {
    return this.#pipeline.call(endpoint, req, opts);
  }

  /** After fixing a rejected key: allow private calls again. */
  resetKeyGuard(): void {
    this.#keyGuard.reset();
  }

  async close(): Promise<void> {
    if (this.#ownsTransport) await this.#transport.close();
  }

  // ---- public market data ----
  time = (o?: CallOptions): R<typeof E.time> => this.call(E.time, {}, o);
  systemStatus = (o?: CallOptions): R<typeof E.systemStatus> => this.call(E.systemStatus, {}, o);
  maintenanceSchedule = (o?: CallOptions): R<typeof E.maintenanceSchedule> =>
    this.call(E.maintenanceSchedule, {}, o);
  assets = (q: Q<typeof E.assets> = {}, o?: CallOptions): R<typeof E.assets> =>
    this.call(E.assets, q, o);
  assetPairs = (q: Q<typeof E.assetPairs> = {}, o?: CallOptions): R<typeof E.assetPairs> =>
    this.call(
      q.info === undefined || q.info === 'info' ? E.assetPairs : E.assetPairsPartial,
      q,
      o,
    ) as R<typeof E.assetPairs>;
  ticker = (q: Q<typeof E.ticker> = {}, o?: CallOptions): R<typeof E.ticker> =>
    this.call(E.ticker, q, o);
  ohlc = (q: Q<typeof E.ohlc>, o?: CallOptions): R<typeof E.ohlc> => this.call(E.ohlc, q, o);
  depth = (q: Q<typeof E.depth>, o?: CallOptions): R<typeof E.depth> => this.call(E.depth, q, o);
  groupedBook = (q: Q<typeof E.groupedBook>, o?: CallOptions): R<typeof E.groupedBook> =>
    this.call(E.groupedBook, q, o);
  trades = (q: Q<typeof E.trades>, o?: CallOptions): R<typeof E.trades> =>
    this.call(E.trades, q, o);
  spread = (q: Q<typeof E.spread>, o?: CallOptions): R<typeof E.spread> =>
    this.call(E.spread, q, o);
  nft = (q: Q<typeof E.nft>, o?: CallOptions): R<typeof E.nft> => this.call(E.nft, q, o);
  nfts = (q: Q<typeof E.nfts>, o?: CallOptions): R<typeof E.nfts> => this.call(E.nfts, q, o);
  nftProvenance = (q: Q<typeof E.nftProvenance>, o?: CallOptions): R<typeof E.nftProvenance> =>
    this.call(E.nftProvenance, q, o);
  nftCollection = (q: Q<typeof E.nftCollection>, o?: CallOptions): R<typeof E.nftCollection> =>
    this.call(E.nftCollection, q, o);
  nftCollections = (q: Q<typeof E.nftCollections>, o?: CallOptions): R<typeof E.nftCollections> =>
    this.call(E.nftCollections, q, o);
  nftCreator = (q: Q<typeof E.nftCreator>, o?: CallOptions): R<typeof E.nftCreator> =>
    this.call(E.nftCreator, q, o);
  nftCreators = (q: Q<typeof E.nftCreators> = {}, o?: CallOptions): R<typeof E.nftCreators> =>
    this.call(E.nftCreators, q, o);

  // ---- private market and account data ----
  level3 = (q: Q<typeof E.level3>, o?: CallOptions): R<typeof E.level3> =>
    this.call(E.level3, q, o);
  balance = (q: Q<typeof E.balance> = {}, o?: CallOptions): R<typeof E.balance> =>
    this.call(E.balance, q, o);
  balanceEx = (q: Q<typeof E.balanceEx> = {}, o?: CallOptions): R<typeof E.balanceEx> =>
    this.call(E.balanceEx, q, o);
  creditLines = (q: Q<typeof E.creditLines> = {}, o?: CallOptions): R<typeof E.creditLines> =>
    this.call(E.creditLines, q, o);
  tradeBalance = (q: Q<typeof E.tradeBalance> = {}, o?: CallOptions): R<typeof E.tradeBalance> =>
    this.call(E.tradeBalance, q, o);
  openOrders = (q: Q<typeof E.openOrders> = {}, o?: CallOptions): R<typeof E.openOrders> =>
    this.call(E.openOrders, q, o);
  closedOrders = (q: Q<typeof E.closedOrders> = {}, o?: CallOptions): R<typeof E.closedOrders> =>
    this.call(E.closedOrders, q, o);
  queryOrders = (q: Q<typeof E.queryOrders>, o?: CallOptions): R<typeof E.queryOrders> =>
    this.call(E.queryOrders, q, o);
  tradeVolume = (q: Q<typeof E.tradeVolume> = {}, o?: CallOptions): R<typeof E.tradeVolume> =>
    this.call(E.tradeVolume, q, o);
  tradesHistory = (q: Q<typeof E.tradesHistory> = {}, o?: CallOptions): R<typeof E.tradesHistory> =>
    this.call(E.tradesHistory, q, o);
  queryTrades = (q: Q<typeof E.queryTrades>, o?: CallOptions): R<typeof E.queryTrades> =>
    this.call(E.queryTrades, q, o);
  ledgers = (q: Q<typeof E.ledgers> = {}, o?: CallOptions): R<typeof E.ledgers> =>
    this.call(E.ledgers, q, o);

  // ---- trading ----
  addOrder = (q: Q<typeof E.addOrder>, o?: CallOptions): R<typeof E.addOrder> =>
    this.call(E.addOrder, q, o);
  addOrderBatch = (q: Q<typeof E.addOrderBatch>, o?: CallOptions): R<typeof E.addOrderBatch> =>
    this.call(E.addOrderBatch, q, o);
  editOrder = (q: Q<typeof E.editOrder>, o?: CallOptions): R<typeof E.editOrder> =>
    this.call(E.editOrder, q, o);
  cancelOrder = (q: Q<typeof E.cancelOrder>, o?: CallOptions): R<typeof E.cancelOrder> =>
    this.call(E.cancelOrder, q, o);
  cancelAll = (o?: CallOptions): R<typeof E.cancelAll> => this.call(E.cancelAll, {}, o);
  cancelAllOrdersAfter = (
    q: Q<typeof E.cancelAllOrdersAfter>,
    o?: CallOptions,
  ): R<typeof E.cancelAllOrdersAfter> => this.call(E.cancelAllOrdersAfter, q, o);
  cancelOrderBatch = (
    q: Q<typeof E.cancelOrderBatch>,
    o?: CallOptions,
  ): R<typeof E.cancelOrderBatch> => this.call(E.cancelOrderBatch, q, o);

  // ---- data export ----
  addExport = (q: Q<typeof E.addExport>, o?: CallOptions): R<typeof E.addExport> =>
    this.call(E.addExport, q, o);
  exportStatus = (q: Q<typeof E.exportStatus>, o?: CallOptions): R<typeof E.exportStatus> =>
    this.call(E.exportStatus, q, o);
  retrieveExport = (q: Q<typeof E.retrieveExport>, o?: CallOptions): R<typeof E.retrieveExport> =>
    this.call(E.retrieveExport, q, o);
  removeExport = (q: Q<typeof E.removeExport>, o?: CallOptions): R<typeof E.removeExport> =>
    this.call(E.removeExport, q, o);

  // ---- funding, subaccounts, websocket token ----
  depositMethods = (q: Q<typeof E.depositMethods>, o?: CallOptions): R<typeof E.depositMethods> =>
    this.call(E.depositMethods, q, o);
  depositAddresses = (
    q: Q<typeof E.depositAddresses>,
    o?: CallOptions,
  ): R<typeof E.depositAddresses> => this.call(E.depositAddresses, q, o);
  depositStatus = (q: Q<typeof E.depositStatus> = {}, o?: CallOptions): R<typeof E.depositStatus> =>
    this.call(E.depositStatus, q, o);
  withdraw = (q: Q<typeof E.withdraw>, o?: CallOptions): R<typeof E.withdraw> =>
    this.call(E.withdraw, q, o);
  withdrawMethods = (
    q: Q<typeof E.withdrawMethods> = {},
    o?: CallOptions,
  ): R<typeof E.withdrawMethods> => this.call(E.withdrawMethods, q, o);
  withdrawAddresses = (
    q: Q<typeof E.withdrawAddresses> = {},
    o?: CallOptions,
  ): R<typeof E.withdrawAddresses> => this.call(E.withdrawAddresses, q, o);
  withdrawStatus = (
    q: Q<typeof E.withdrawStatus> = {},
    o?: CallOptions,
  ): R<typeof E.withdrawStatus> => this.call(E.withdrawStatus, q, o);
  withdrawCancel = (q: Q<typeof E.withdrawCancel>, o?: CallOptions): R<typeof E.withdrawCancel> =>
    this.call(E.withdrawCancel, q, o);
  walletTransfer = (q: Q<typeof E.walletTransfer>, o?: CallOptions): R<typeof E.walletTransfer> =>
    this.call(E.walletTransfer, q, o);
  createSubaccount = (
    q: Q<typeof E.createSubaccount>,
    o?: CallOptions,
  ): R<typeof E.createSubaccount> => this.call(E.createSubaccount, q, o);
  accountTransfer = (
    q: Q<typeof E.accountTransfer>,
    o?: CallOptions,
  ): R<typeof E.accountTransfer> => this.call(E.accountTransfer, q, o);
  getWebSocketsToken = (o?: CallOptions): R<typeof E.getWebSocketsToken> =>
    this.call(E.getWebSocketsToken, {}, o);

  // ---- Earn ----
  earnAllocate = (q: Q<typeof E.earnAllocate>, o?: CallOptions): R<typeof E.earnAllocate> =>
    this.call(E.earnAllocate, q, o);
  earnDeallocate = (q: Q<typeof E.earnDeallocate>, o?: CallOptions): R<typeof E.earnDeallocate> =>
    this.call(E.earnDeallocate, q, o);
  earnAllocateStatus = (
    q: Q<typeof E.earnAllocateStatus>,
    o?: CallOptions,
  ): R<typeof E.earnAllocateStatus> => this.call(E.earnAllocateStatus, q, o);
  earnDeallocateStatus = (
    q: Q<typeof E.earnDeallocateStatus>,
    o?: CallOptions,
  ): R<typeof E.earnDeallocateStatus> => this.call(E.earnDeallocateStatus, q, o);
  earnStrategies = (
    q: Q<typeof E.earnStrategies> = {},
    o?: CallOptions,
  ): R<typeof E.earnStrategies> => this.call(E.earnStrategies, q, o);
  earnAllocations = (
    q: Q<typeof E.earnAllocations> = {},
    o?: CallOptions,
  ): R<typeof E.earnAllocations> => this.call(E.earnAllocations, q, o);

  // ---- NFT trading ----
  nftCreateAuction = (
    q: Q<typeof E.nftCreateAuction>,
    o?: CallOptions,
  ): R<typeof E.nftCreateAuction> => this.call(E.nftCreateAuction, q, o);
  nftModifyAuction = (
    q: Q<typeof E.nftModifyAuction>,
    o?: CallOptions,
  ): R<typeof E.nftModifyAuction> => this.call(E.nftModifyAuction, q, o);
  nftCancelAuction = (
    q: Q<typeof E.nftCancelAuction>,
    o?: CallOptions,
  ): R<typeof E.nftCancelAuction> => this.call(E.nftCancelAuction, q, o);
  nftPlaceOffer = (q: Q<typeof E.nftPlaceOffer>, o?: CallOptions): R<typeof E.nftPlaceOffer> =>
    this.call(E.nftPlaceOffer, q, o);

  // ---- second document ----
  getOtcSpotTradeHistory = (
    q: Q<typeof E.getOtcSpotTradeHistory>,
    o?: CallOptions,
  ): R<typeof E.getOtcSpotTradeHistory> => this.call(E.getOtcSpotTradeHistory, q, o);
  payTransferCreate = (
    q: Q<typeof E.payTransferCreate>,
    o?: CallOptions,
  ): R<typeof E.payTransferCreate> => this.call(E.payTransferCreate, q, o);
  withdrawInfo = (q: Q<typeof E.withdrawInfo>, o?: CallOptions): R<typeof E.withdrawInfo> =>
    this.call(E.withdrawInfo, q, o);
  futuresCheckApiKey = (o?: CallOptions): R<typeof E.futuresCheckApiKey> =>
    this.call(E.futuresCheckApiKey, {}, o);
  futuresAcceptRfqOffer = (
    q: Q<typeof E.futuresAcceptRfqOffer>,
    o?: CallOptions,
  ): R<typeof E.futuresAcceptRfqOffer> => this.call(E.futuresAcceptRfqOffer, q, o);
  futuresFills = (q: Q<typeof E.futuresFills> = {}, o?: CallOptions): R<typeof E.futuresFills> =>
    this.call(E.futuresFills, q, o);
  custodyWithdrawalMethods = (
    q: Q<typeof E.custodyWithdrawalMethods>,
    o?: CallOptions,
  ): R<typeof E.custodyWithdrawalMethods> => this.call(E.custodyWithdrawalMethods, q, o);
}

function checkUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidInputError(field, `is not a URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidInputError(field, `must be http or https, got ${url.protocol}`);
  }
  return value.replace(/\/+$/, '');
}

function checkNonceWindow(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(
      'nonceWindow',
      `must be a non-negative integer of milliseconds, got ${String(value)}`,
    );
  }
  return value;
}

function credentialsOf(
  input: CredentialsInput | Credentials | undefined,
  field: string,
): Credentials | undefined {
  if (input === undefined) return undefined;
  return input instanceof Credentials ? input : new Credentials(input, field);
}

function isTransport(t: TransportOptions | Transport | undefined): t is Transport {
  return t !== undefined && typeof (t as Partial<Transport>).send === 'function';
}
