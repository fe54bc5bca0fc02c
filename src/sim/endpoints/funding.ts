/**
 * Funding: deposit and withdrawal methods, addresses and status records, Withdraw,
 * WithdrawCancel and WalletTransfer. The spec shows only the withdrawal status record; the other
 * shapes follow the exchange's published conventions and are documented here.
 *
 * Catalogue (per asset, default markets): XXBT `Bitcoin` and `Bitcoin Lightning`, XETH `Ether`,
 * ZUSD `Bank Wire (USD)` (no deposit address). Other configured assets have no funding methods.
 *
 * - DepositMethods (`asset` required): `[{method, limit: false | string, fee, 'gen-address',
 *   minimum}]`.
 * - DepositAddresses (`asset`, `method` required; `new`, `amount`): `[{address, expiretm: '0',
 *   new?: true}]`. Addresses are derived from the key, so they are stable across restarts;
 *   `new=true` adds the next one. Lightning needs `amount` and answers a one-off invoice.
 *   A method without addresses (bank wire) is `EGeneral:Invalid arguments:method`.
 * - DepositStatus: synthetic history of six deposits per key in the three days before the key
 *   was created (not in the ledger: they predate it). Records `{method, aclass, asset, refid,
 *   txid, info, amount, fee, time, status: 'Success', originators?}`.
 * - WithdrawMethods: `[{asset, method, network?, minimum, fee}]` (network absent for bank wire).
 * - WithdrawAddresses: every key has the same four withdrawal keys, `btc-cold` (Bitcoin),
 *   `btc-lightning`, `eth-main` (Ether) and `usd-bank`, each with an address derived from the API
 *   key: `[{address, asset, method, key, verified: true}]`.
 * - Withdraw: `amount` is gross; the method's fee comes out of it, so the record's `amount` is
 *   what is sent (amount − fee). The balance is debited at once (Balance is net of pending
 *   withdrawals), the record is `Pending` for {@link WITHDRAWAL_SETTLE_MS}, then `Success` with a
 *   txid (null while pending). Result `{refid}`. Errors: `EFunding:Unknown withdraw key`,
 *   `EFunding:Invalid amount` (below the method minimum, or not above the fee),
 *   `EFunding:Max fee exceeded`, `EFunding:Insufficient funds`, `EGeneral:Invalid arguments:address`
 *   when `address` is not the key's.
 * - WithdrawStatus / DepositStatus paging: without `cursor`, a plain array, newest first, at most
 *   `limit` (default and maximum 500). With `cursor` (`true` for the first page, then the
 *   `next_cursor` received) `{withdrawals | deposit: [...], next_cursor: string | null}` with
 *   `limit` 1..500, default 25. `start`/`end` are inclusive Unix seconds.
 * - WithdrawCancel: `true` when the withdrawal was `Pending` (it becomes `Failure` with
 *   `status-prop: 'canceled'` and the gross amount is credited back), `false` once it has been
 *   processed, `EFunding:Unknown reference id` for an unknown refid or a wrong asset.
 * - WalletTransfer: debits the spot wallet and records the transfer as a withdrawal with method
 *   `Wallet Transfer` and key `Futures Wallet`, so WithdrawStatus shows it and WithdrawCancel
 *   can still cancel it while pending — without the withdraw permission, as the spec says.
 *   Its own permission is not shown: the simulator asks for `funds-withdraw`.
 */
import { createHash } from 'node:crypto';
import { Decimal, isDecimalString, toWire } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { invalidArguments, SimError } from '../errors.js';
import { ok, type Route, type SimRequest } from '../http/route.js';
import type { SimAsset } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { bool, requireText, text } from './order-params.js';
import { optInt } from './public-params.js';
import { callerOf, positiveAmount, requireAmount, seededRandom } from './support.js';
import { base32Of, stableRef } from '../ids.js';

type Params = Readonly<Record<string, unknown>>;

const seconds = (ms: number): number => Math.floor(ms / 1000);

// ---- catalogue -----------------------------------------------------------------------------

interface FundingMethod {
  readonly asset: string;
  readonly method: string;
  readonly network?: string;
  readonly deposit: {
    readonly minimum: string;
    readonly limit: string | false;
    readonly fee: string;
    readonly address: 'btc' | 'lightning' | 'eth' | undefined;
  };
  readonly withdraw: { readonly minimum: string; readonly fee: string };
}

const METHODS: readonly FundingMethod[] = [
  {
    asset: 'XXBT',
    method: 'Bitcoin',
    network: 'Bitcoin',
    deposit: { minimum: '0.0001', limit: false, fee: '0', address: 'btc' },
    withdraw: { minimum: '0.0005', fee: '0.00015' },
  },
  {
    asset: 'XXBT',
    method: 'Bitcoin Lightning',
    network: 'Lightning',
    deposit: { minimum: '0.00001', limit: '0.1', fee: '0', address: 'lightning' },
    withdraw: { minimum: '0.00001', fee: '0.00001' },
  },
  {
    asset: 'XETH',
    method: 'Ether',
    network: 'Ethereum',
    deposit: { minimum: '0.0001', limit: false, fee: '0', address: 'eth' },
    withdraw: { minimum: '0.005', fee: '0.0025' },
  },
  {
    asset: 'ZUSD',
    method: 'Bank Wire (USD)',
    deposit: { minimum: '5', limit: false, fee: '0', address: undefined },
    withdraw: { minimum: '10', fee: '5' },
  },
];

export interface WithdrawKey {
  readonly key: string;
  readonly asset: string;
  readonly method: string;
  readonly address: string;
}

const KEY_NAMES: readonly { key: string; asset: string; method: string }[] = [
  { key: 'btc-cold', asset: 'XXBT', method: 'Bitcoin' },
  { key: 'btc-lightning', asset: 'XXBT', method: 'Bitcoin Lightning' },
  { key: 'eth-main', asset: 'XETH', method: 'Ether' },
  { key: 'usd-bank', asset: 'ZUSD', method: 'Bank Wire (USD)' },
];

/** The caller's saved withdrawal keys (the same names for every key, its own addresses). */
export function withdrawKeysOf(ctx: SimContext, account: Account): WithdrawKey[] {
  return KEY_NAMES.filter((k) => ctx.markets.asset(k.asset) !== undefined).map((k) => ({
    ...k,
    address: addressFor(k.method, `withdraw:${account.key}:${k.key}`),
  }));
}

/** The method a withdrawal key uses, with its fee and minimum. */
export function withdrawalMethod(
  asset: string,
  method: string,
): { readonly fee: Decimal; readonly minimum: Decimal } | undefined {
  const m = METHODS.find((x) => x.asset === asset && x.method === method);
  return m === undefined
    ? undefined
    : { fee: new Decimal(m.withdraw.fee), minimum: new Decimal(m.withdraw.minimum) };
}

function addressFor(method: string, seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  switch (method) {
    case 'Bitcoin':
      return `bc1q${base32Of(seed, 38).toLowerCase()}`;
    case 'Bitcoin Lightning':
      return `lnbc1${base32Of(seed, 52).toLowerCase()}`;
    case 'Ether':
      return `0x${hex.slice(0, 40)}`;
    default:
      return `US${String(parseInt(hex.slice(0, 12), 16))
        .padStart(16, '0')
        .slice(0, 16)}`;
  }
}

// ---- state ---------------------------------------------------------------------------------

/** How long a withdrawal stays `Pending` (and cancellable) before it is sent. */
export const WITHDRAWAL_SETTLE_MS = 5_000;

type WithdrawalStatus = 'Pending' | 'Success' | 'Failure';

interface Withdrawal {
  readonly refid: string;
  readonly walletTransfer: boolean;
  readonly method: string;
  readonly network: string | undefined;
  readonly asset: string;
  readonly key: string;
  readonly info: string;
  /** Net amount sent. */
  readonly amount: Decimal;
  readonly fee: Decimal;
  readonly timeMs: number;
  readonly settlesAtMs: number;
  status: WithdrawalStatus;
  statusProp: string | undefined;
  txid: string | null;
}

interface Deposit {
  readonly method: string;
  readonly asset: string;
  readonly refid: string;
  readonly txid: string;
  readonly info: string;
  readonly amount: Decimal;
  readonly fee: Decimal;
  readonly timeMs: number;
}

interface FundingState {
  readonly withdrawals: Withdrawal[];
  readonly depositAddresses: Map<string, number>;
  deposits: Deposit[] | undefined;
}

// ---- routes --------------------------------------------------------------------------------

export function fundingRoutes(ctx: SimContext): Route[] {
  const states = new Map<string, FundingState>();
  const stateOf = (account: Account): FundingState => {
    let s = states.get(account.key);
    if (s === undefined) {
      s = { withdrawals: [], depositAddresses: new Map(), deposits: undefined };
      states.set(account.key, s);
    }
    return s;
  };

  ctx.onTick((nowMs) => {
    for (const s of states.values()) {
      for (const w of s.withdrawals) {
        if (w.status === 'Pending' && w.settlesAtMs <= nowMs) {
          w.status = 'Success';
          w.txid = w.walletTransfer
            ? w.refid
            : createHash('sha256').update(`tx:${w.refid}`).digest('hex');
        }
      }
    }
  });

  const methodsFor = (assetId: string): FundingMethod[] =>
    METHODS.filter((m) => m.asset === assetId);

  const deposits = (account: Account): Deposit[] => {
    const s = stateOf(account);
    if (s.deposits === undefined) s.deposits = seedDeposits(ctx, account);
    return s.deposits;
  };

  const withdraw = (req: SimRequest): Withdrawal => {
    const account = callerOf(req);
    const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
    const keyName = requireText(req.params, 'key');
    const amount = requireAmount(req.params, 'amount', asset);
    const key = withdrawKeysOf(ctx, account).find((k) => k.key === keyName);
    if (key === undefined || key.asset !== asset.id) {
      throw new SimError('EFunding:Unknown withdraw key');
    }
    const address = text(req.params, 'address');
    if (address !== undefined && address !== key.address) throw invalidArguments('address');
    const method = withdrawalMethod(key.asset, key.method);
    if (method === undefined) throw new SimError('EFunding:Unknown withdraw key');
    if (amount.lt(method.minimum) || amount.lte(method.fee)) {
      throw new SimError('EFunding:Invalid amount');
    }
    const maxFee = text(req.params, 'max_fee');
    if (maxFee !== undefined) {
      if (!isDecimalString(maxFee) || maxFee.startsWith('-')) throw invalidArguments('max_fee');
      if (method.fee.gt(maxFee)) throw new SimError('EFunding:Max fee exceeded');
    }
    if (amount.gt(account.wallet.available(asset.id))) {
      throw new SimError('EFunding:Insufficient funds');
    }
    const refid = ctx.ids.ref('A');
    const net = amount.minus(method.fee);
    account.wallet.post({
      refid,
      timeMs: req.nowMs,
      type: 'withdrawal',
      asset: asset.id,
      amount: net.negated(),
      fee: method.fee,
    });
    const record: Withdrawal = {
      refid,
      walletTransfer: false,
      method: key.method,
      network: METHODS.find((m) => m.method === key.method)?.network,
      asset: asset.id,
      key: key.key,
      info: key.address,
      amount: net,
      fee: method.fee,
      timeMs: req.nowMs,
      settlesAtMs: req.nowMs + WITHDRAWAL_SETTLE_MS,
      status: 'Pending',
      statusProp: undefined,
      txid: null,
    };
    stateOf(account).withdrawals.push(record);
    return record;
  };

  return [
    {
      family: 'private',
      name: 'DepositMethods',
      permission: ['funds-query'],
      handle: (req) => {
        const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
        return ok(
          methodsFor(asset.id).map((m) => ({
            method: m.method,
            limit: m.deposit.limit,
            fee: m.deposit.fee,
            'gen-address': m.deposit.address !== undefined,
            minimum: m.deposit.minimum,
          })),
        );
      },
    },
    {
      family: 'private',
      name: 'DepositAddresses',
      permission: ['funds-query'],
      handle: (req) => {
        const account = callerOf(req);
        const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
        const methodName = requireText(req.params, 'method');
        const method = methodsFor(asset.id).find((m) => m.method === methodName);
        if (method === undefined || method.deposit.address === undefined) {
          throw invalidArguments('method');
        }
        const amountText = text(req.params, 'amount');
        const amount =
          amountText === undefined
            ? undefined
            : positiveAmount(amountText, 'amount', asset.decimals);
        const seedBase = `deposit:${account.key}:${asset.id}:${method.method}`;
        if (method.deposit.address === 'lightning') {
          // An invoice is per amount and per request; it is not remembered.
          if (amount === undefined) throw invalidArguments('amount');
          return ok([
            {
              address: addressFor(method.method, `${seedBase}:${toWire(amount)}:${req.nowMs}`),
              expiretm: String(seconds(req.nowMs) + 3600),
              new: true,
            },
          ]);
        }
        const s = stateOf(account);
        const mapKey = `${asset.id}:${method.method}`;
        let count = s.depositAddresses.get(mapKey) ?? 1;
        const fresh = bool(req.params, 'new');
        if (fresh) count += 1;
        s.depositAddresses.set(mapKey, count);
        const list = [];
        for (let i = count; i >= 1; i--) {
          const entry: Record<string, unknown> = {
            address: addressFor(method.method, `${seedBase}:${i}`),
            expiretm: '0',
          };
          if (fresh && i === count) entry.new = true;
          list.push(entry);
        }
        return ok(list);
      },
    },
    {
      family: 'private',
      name: 'DepositStatus',
      permission: ['funds-query'],
      handle: (req) => {
        const account = callerOf(req);
        const originators = bool(req.params, 'originators');
        const records = filterRecords(ctx, req.params, deposits(account)).map((d) => {
          const rec: Record<string, unknown> = {
            method: d.method,
            aclass: 'currency',
            asset: d.asset,
            refid: d.refid,
            txid: d.txid,
            info: d.info,
            amount: toWire(d.amount),
            fee: toWire(d.fee),
            time: seconds(d.timeMs),
            status: 'Success',
          };
          if (originators) rec.originators = [addressFor(d.method, `origin:${d.refid}`)];
          return rec;
        });
        return ok(page(req.params, records, 'deposit'));
      },
    },
    {
      family: 'private',
      name: 'WithdrawMethods',
      permission: ['funds-withdraw'],
      handle: (req) => {
        const assetName = text(req.params, 'asset');
        const asset = assetName === undefined ? undefined : ctx.markets.requireAsset(assetName);
        const aclass = text(req.params, 'aclass');
        const network = text(req.params, 'network');
        const list = METHODS.filter(
          (m) =>
            ctx.markets.asset(m.asset) !== undefined &&
            (asset === undefined || m.asset === asset.id) &&
            (aclass === undefined || aclass === 'currency') &&
            (network === undefined || m.network === network),
        ).map((m) => ({
          asset: m.asset,
          method: m.method,
          ...(m.network === undefined ? {} : { network: m.network }),
          minimum: m.withdraw.minimum,
          fee: m.withdraw.fee,
        }));
        return ok(list);
      },
    },
    {
      family: 'private',
      name: 'WithdrawAddresses',
      permission: ['funds-withdraw'],
      handle: (req) => {
        const account = callerOf(req);
        const assetName = text(req.params, 'asset');
        const asset = assetName === undefined ? undefined : ctx.markets.requireAsset(assetName);
        const method = text(req.params, 'method');
        const key = text(req.params, 'key');
        const verified =
          req.params.verified === undefined ? undefined : bool(req.params, 'verified');
        const list = withdrawKeysOf(ctx, account)
          .filter(
            (k) =>
              (asset === undefined || k.asset === asset.id) &&
              (method === undefined || k.method === method) &&
              (key === undefined || k.key === key) &&
              verified !== false,
          )
          .map((k) => ({
            address: k.address,
            asset: k.asset,
            method: k.method,
            key: k.key,
            verified: true,
          }));
        return ok(list);
      },
    },
    {
      family: 'private',
      name: 'Withdraw',
      permission: ['funds-withdraw'],
      handle: (req) => ok({ refid: withdraw(req).refid }),
    },
    {
      family: 'private',
      name: 'WithdrawStatus',
      permission: ['funds-withdraw'],
      handle: (req) => {
        const account = callerOf(req);
        const records = filterRecords(ctx, req.params, stateOf(account).withdrawals).map((w) =>
          withdrawalRecord(w),
        );
        return ok(page(req.params, records, 'withdrawals'));
      },
    },
    {
      family: 'private',
      name: 'WithdrawCancel',
      // Wallet transfers need no permission (spec); other withdrawals are checked below.
      permission: [],
      handle: (req) => {
        const account = callerOf(req);
        const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
        const refid = requireText(req.params, 'refid');
        const w = stateOf(account).withdrawals.find((x) => x.refid === refid);
        if (!(w?.walletTransfer ?? false) && !account.permissions.has('funds-withdraw')) {
          throw new SimError('EGeneral:Permission denied');
        }
        if (w === undefined || w.asset !== asset.id) {
          throw new SimError('EFunding:Unknown reference id');
        }
        if (w.status !== 'Pending') return ok(false);
        w.status = 'Failure';
        w.statusProp = 'canceled';
        account.wallet.post({
          refid: w.refid,
          timeMs: req.nowMs,
          type: w.walletTransfer ? 'transfer' : 'withdrawal',
          subtype: 'canceled',
          asset: w.asset,
          amount: w.amount.plus(w.fee),
        });
        return ok(true);
      },
    },
    {
      family: 'private',
      name: 'WalletTransfer',
      permission: ['funds-withdraw'],
      handle: (req) => {
        const account = callerOf(req);
        const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
        if (requireText(req.params, 'from') !== 'Spot Wallet') throw invalidArguments('from');
        if (requireText(req.params, 'to') !== 'Futures Wallet') throw invalidArguments('to');
        const amount = requireAmount(req.params, 'amount', asset);
        if (amount.gt(account.wallet.available(asset.id))) {
          throw new SimError('EFunding:Insufficient funds');
        }
        const refid = ctx.ids.ref('B');
        account.wallet.post({
          refid,
          timeMs: req.nowMs,
          type: 'transfer',
          subtype: 'spottofutures',
          asset: asset.id,
          amount: amount.negated(),
        });
        stateOf(account).withdrawals.push({
          refid,
          walletTransfer: true,
          method: 'Wallet Transfer',
          network: undefined,
          asset: asset.id,
          key: 'Futures Wallet',
          info: 'Futures Wallet',
          amount,
          fee: new Decimal(0),
          timeMs: req.nowMs,
          settlesAtMs: req.nowMs + WITHDRAWAL_SETTLE_MS,
          status: 'Pending',
          statusProp: undefined,
          txid: null,
        });
        return ok({ refid });
      },
    },
  ];
}

function withdrawalRecord(w: Withdrawal): Record<string, unknown> {
  const rec: Record<string, unknown> = {
    method: w.method,
    ...(w.network === undefined ? {} : { network: w.network }),
    aclass: 'currency',
    asset: w.asset,
    refid: w.refid,
    txid: w.txid,
    info: w.info,
    amount: toWire(w.amount),
    fee: toWire(w.fee),
    time: seconds(w.timeMs),
    status: w.status,
    key: w.key,
  };
  if (w.statusProp !== undefined) rec['status-prop'] = w.statusProp;
  return rec;
}

/** The asset, method, start and end filters common to DepositStatus and WithdrawStatus. */
function filterRecords<T extends { asset: string; method: string; timeMs: number }>(
  ctx: SimContext,
  params: Params,
  records: readonly T[],
): T[] {
  const assetName = text(params, 'asset');
  const asset = assetName === undefined ? undefined : ctx.markets.requireAsset(assetName);
  const method = text(params, 'method');
  const start = optInt(params, 'start');
  const end = optInt(params, 'end');
  return records
    .filter(
      (r) =>
        (asset === undefined || r.asset === asset.id) &&
        (method === undefined || r.method === method) &&
        (start === undefined || r.timeMs >= start * 1000) &&
        (end === undefined || r.timeMs < (end + 1) * 1000),
    )
    .sort((a, b) => b.timeMs - a.timeMs);
}

const MAX_RECORDS = 500;

/** A plain array without `cursor`; a cursor page `{<listKey>, next_cursor}` with it. */
function page(params: Params, records: Record<string, unknown>[], listKey: string): unknown {
  const cursor = params.cursor;
  const limit = optInt(params, 'limit');
  if (limit !== undefined && (limit < 1 || limit > MAX_RECORDS)) throw invalidArguments('limit');
  if (cursor === undefined || cursor === '' || cursor === false || cursor === 'false') {
    return records.slice(0, limit ?? MAX_RECORDS);
  }
  let offset = 0;
  if (cursor !== true && cursor !== 'true') {
    if (typeof cursor !== 'string') throw invalidArguments('cursor');
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const m = /^o:(\d{1,9})$/.exec(decoded);
    if (m === null) throw invalidArguments('cursor');
    offset = Number(m[1]);
  }
  const size = limit ?? 25;
  const items = records.slice(offset, offset + size);
  const next = offset + size < records.length ? offset + size : undefined;
  return {
    [listKey]: items,
    next_cursor: next === undefined ? null : Buffer.from(`o:${next}`).toString('base64url'),
  };
}

function seedDeposits(ctx: SimContext, account: Account): Deposit[] {
  const rnd = seededRandom(`deposits:${account.key}`);
  const usable = METHODS.filter(
    (m) => m.deposit.address !== 'lightning' && ctx.markets.asset(m.asset) !== undefined,
  );
  const out: Deposit[] = [];
  if (usable.length === 0) return out;
  for (let i = 0; i < 6; i++) {
    const m = usable[i % usable.length] as FundingMethod;
    const asset = ctx.markets.asset(m.asset) as SimAsset;
    const scale = m.asset === 'ZUSD' ? 10000 : m.asset === 'XETH' ? 10 : 1;
    const amount = new Decimal(Math.floor(rnd() * 1e6) + 1000)
      .div(1e6)
      .times(scale)
      .toDecimalPlaces(Math.min(asset.decimals, 6), Decimal.ROUND_DOWN);
    const timeMs = account.createdAtMs - (i + 1) * 12 * 3600_000 - Math.floor(rnd() * 3600_000);
    const refid = stableRef('F', `deposit:${account.key}:${i}`);
    out.push({
      method: m.method,
      asset: m.asset,
      refid,
      txid:
        m.deposit.address === undefined
          ? refid
          : createHash('sha256').update(`dtx:${refid}`).digest('hex'),
      info:
        m.deposit.address === undefined
          ? 'Bank Wire'
          : addressFor(m.method, `deposit:${account.key}:${m.asset}:${m.method}:1`),
      amount,
      fee: new Decimal(0),
      timeMs,
    });
  }
  return out;
}
