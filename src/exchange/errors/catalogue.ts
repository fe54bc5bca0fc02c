import { ExchangeError, parseErrorString, type ErrorParts } from './exchange-error.js';

type Context = { traceId: string | undefined; endpoint: string };

/**
 * Every error string of the spec's table, one class each, as data. `retryable` says whether the
 * same request may succeed later without the caller changing it; for order entry the executor
 * still decides (a retry of an order is never blind).
 */
function define(name: string, prefix: string, code: string, retryable: boolean) {
  const cls = class extends ExchangeError {
    static readonly prefix = prefix;
    static readonly code = code;
    constructor(parts: ErrorParts, context: Context) {
      super(code, parts, context, retryable);
    }
  };
  // Without this every class would be called `cls` in logs and stack traces.
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

export const InvalidArgumentsError = define(
  'InvalidArgumentsError',
  'EGeneral:Invalid arguments',
  'GENERAL_INVALID_ARGUMENTS',
  false,
);
export const IndexUnavailableError = define(
  'IndexUnavailableError',
  'EGeneral:Invalid arguments:Index unavailable',
  'GENERAL_INDEX_UNAVAILABLE',
  true,
);
export const InvalidStrategyIdError = define(
  'InvalidStrategyIdError',
  'EGeneral:Invalid arguments:Invalid strategy ID',
  'EARN_INVALID_STRATEGY_ID',
  false,
);
export const TemporaryLockoutError = define(
  'TemporaryLockoutError',
  'EGeneral:Temporary lockout',
  'GENERAL_TEMPORARY_LOCKOUT',
  true,
);
export const PermissionDeniedError = define(
  'PermissionDeniedError',
  'EGeneral:Permission denied',
  'GENERAL_PERMISSION_DENIED',
  false,
);
export const ServiceUnavailableError = define(
  'ServiceUnavailableError',
  'EService:Unavailable',
  'SERVICE_UNAVAILABLE',
  true,
);
export const CancelOnlyModeError = define(
  'CancelOnlyModeError',
  'EService:Market in cancel_only mode',
  'SERVICE_CANCEL_ONLY',
  true,
);
export const PostOnlyModeError = define(
  'PostOnlyModeError',
  'EService:Market in post_only mode',
  'SERVICE_POST_ONLY',
  true,
);
export const DeadlineElapsedError = define(
  'DeadlineElapsedError',
  'EService:Deadline elapsed',
  'SERVICE_DEADLINE_ELAPSED',
  true,
);
export const InvalidKeyError = define(
  'InvalidKeyError',
  'EAPI:Invalid key',
  'API_INVALID_KEY',
  false,
);
export const InvalidSignatureError = define(
  'InvalidSignatureError',
  'EAPI:Invalid signature',
  'API_INVALID_SIGNATURE',
  false,
);
export const InvalidNonceError = define(
  'InvalidNonceError',
  'EAPI:Invalid nonce',
  'API_INVALID_NONCE',
  true,
);
export const RateLimitExceededError = define(
  'RateLimitExceededError',
  'EAPI:Rate limit exceeded',
  'API_RATE_LIMIT_EXCEEDED',
  true,
);
export const CannotOpenPositionError = define(
  'CannotOpenPositionError',
  'EOrder:Cannot open position',
  'ORDER_CANNOT_OPEN_POSITION',
  false,
);
export const MarginAllowanceExceededError = define(
  'MarginAllowanceExceededError',
  'EOrder:Margin allowance exceeded',
  'ORDER_MARGIN_ALLOWANCE_EXCEEDED',
  false,
);
export const MarginLevelTooLowError = define(
  'MarginLevelTooLowError',
  'EOrder:Margin level too low',
  'ORDER_MARGIN_LEVEL_TOO_LOW',
  false,
);
export const MarginPositionSizeExceededError = define(
  'MarginPositionSizeExceededError',
  'EOrder:Margin position size exceeded',
  'ORDER_MARGIN_POSITION_SIZE_EXCEEDED',
  false,
);
export const InsufficientMarginError = define(
  'InsufficientMarginError',
  'EOrder:Insufficient margin',
  'ORDER_INSUFFICIENT_MARGIN',
  true,
);
export const InsufficientFundsError = define(
  'InsufficientFundsError',
  'EOrder:Insufficient funds',
  'ORDER_INSUFFICIENT_FUNDS',
  false,
);
export const OrderMinimumNotMetError = define(
  'OrderMinimumNotMetError',
  'EOrder:Order minimum not met',
  'ORDER_MINIMUM_NOT_MET',
  false,
);
export const CostMinimumNotMetError = define(
  'CostMinimumNotMetError',
  'EOrder:Cost minimum not met',
  'ORDER_COST_MINIMUM_NOT_MET',
  false,
);
export const TickSizeCheckFailedError = define(
  'TickSizeCheckFailedError',
  'EOrder:Tick size check failed',
  'ORDER_TICK_SIZE_CHECK_FAILED',
  false,
);
export const OrdersLimitExceededError = define(
  'OrdersLimitExceededError',
  'EOrder:Orders limit exceeded',
  'ORDER_ORDERS_LIMIT_EXCEEDED',
  false,
);
export const OrderRateLimitExceededError = define(
  'OrderRateLimitExceededError',
  'EOrder:Rate limit exceeded',
  'ORDER_RATE_LIMIT_EXCEEDED',
  true,
);
export const DomainRateLimitExceededError = define(
  'DomainRateLimitExceededError',
  'EOrder:Domain rate limit exceeded',
  'ORDER_DOMAIN_RATE_LIMIT_EXCEEDED',
  true,
);
export const PositionsLimitExceededError = define(
  'PositionsLimitExceededError',
  'EOrder:Positions limit exceeded',
  'ORDER_POSITIONS_LIMIT_EXCEEDED',
  false,
);
export const UnknownPositionError = define(
  'UnknownPositionError',
  'EOrder:Unknown position',
  'ORDER_UNKNOWN_POSITION',
  false,
);
export const AcquisitionLimitExceededError = define(
  'AcquisitionLimitExceededError',
  'EBM:limit exceeded:CAL',
  'BM_ACQUISITION_LIMIT_EXCEEDED',
  false,
);
export const MaxFeeExceededError = define(
  'MaxFeeExceededError',
  'EFunding:Max fee exceeded',
  'FUNDING_MAX_FEE_EXCEEDED',
  false,
);
export const EarnBelowMinError = define(
  'EarnBelowMinError',
  'EEarnings:Below min',
  'EARN_BELOW_MIN',
  false,
);
// The two Busy strings call for different handling: poll the status endpoint, or wait and retry.
export const EarnBusyError = define('EarnBusyError', 'EEarnings:Busy', 'EARN_BUSY', true);
export const EarnOperationInProgressError = define(
  'EarnOperationInProgressError',
  'EEarnings:Busy:Another (de)allocation for the same strategy is in progress',
  'EARN_OPERATION_IN_PROGRESS',
  true,
);
export const EarnServiceBusyError = define(
  'EarnServiceBusyError',
  'EEarnings:Busy. Try again in a few minutes',
  'EARN_SERVICE_BUSY',
  true,
);
export const EarnTierTooLowError = define(
  'EarnTierTooLowError',
  'EEarnings:Permission denied',
  'EARN_TIER_TOO_LOW',
  false,
);
export const EarnInsufficientFundsError = define(
  'EarnInsufficientFundsError',
  'EEarnings:Insufficient funds',
  'EARN_INSUFFICIENT_FUNDS',
  false,
);
export const EarnAboveMaxError = define(
  'EarnAboveMaxError',
  'EEarnings:Above max',
  'EARN_ABOVE_MAX',
  false,
);
export const EarnAboveUserLimitError = define(
  'EarnAboveUserLimitError',
  'EEarnings:Above max:The allocation exceeds user limit for the strategy',
  'EARN_ABOVE_USER_LIMIT',
  false,
);
export const EarnAboveStrategyLimitError = define(
  'EarnAboveStrategyLimitError',
  'EEarnings:Above max:The allocation exceeds the total strategy limit',
  'EARN_ABOVE_STRATEGY_LIMIT',
  false,
);

/**
 * Not in the spec's table, but what the venue (and the simulator) answers when an edit or a cancel
 * names an order that is no longer on the book: the caller learns the order is gone.
 */
export const UnknownOrderError = define(
  'UnknownOrderError',
  'EOrder:Unknown order',
  'ORDER_UNKNOWN',
  false,
);
export const OrderNotOpenError = define(
  'OrderNotOpenError',
  'EOrder:Invalid order:Order is not open',
  'ORDER_NOT_OPEN',
  false,
);

/** `EService:Throttled: <UNIX timestamp>`: the request was not processed; retry after `retryAtMs`. */
export class ThrottledError extends ExchangeError {
  static readonly prefix = 'EService:Throttled';
  static readonly code = 'SERVICE_THROTTLED';
  /** When the exchange accepts requests again (ms since epoch); undefined if it gave no time. */
  readonly retryAtMs: number | undefined;

  constructor(parts: ErrorParts, context: Context) {
    super(ThrottledError.code, parts, context, true);
    const seconds = Number(parts.extra);
    this.retryAtMs =
      parts.extra !== undefined && Number.isFinite(seconds) ? seconds * 1000 : undefined;
  }
}

/** A string the spec does not list: kept verbatim so nothing the exchange said is lost. */
export class UnknownExchangeError extends ExchangeError {
  static readonly code = 'EXCHANGE_UNKNOWN';
  constructor(parts: ErrorParts, context: Context) {
    super(UnknownExchangeError.code, parts, context, false);
  }
}

type ErrorClass = (new (parts: ErrorParts, context: Context) => ExchangeError) & {
  readonly prefix: string;
  readonly code: string;
};

export const ERROR_CLASSES: readonly ErrorClass[] = [
  InvalidArgumentsError,
  IndexUnavailableError,
  InvalidStrategyIdError,
  TemporaryLockoutError,
  PermissionDeniedError,
  ServiceUnavailableError,
  CancelOnlyModeError,
  PostOnlyModeError,
  DeadlineElapsedError,
  ThrottledError,
  InvalidKeyError,
  InvalidSignatureError,
  InvalidNonceError,
  RateLimitExceededError,
  CannotOpenPositionError,
  MarginAllowanceExceededError,
  MarginLevelTooLowError,
  MarginPositionSizeExceededError,
  InsufficientMarginError,
  InsufficientFundsError,
  OrderMinimumNotMetError,
  CostMinimumNotMetError,
  TickSizeCheckFailedError,
  OrdersLimitExceededError,
  OrderRateLimitExceededError,
  DomainRateLimitExceededError,
  PositionsLimitExceededError,
  UnknownPositionError,
  AcquisitionLimitExceededError,
  MaxFeeExceededError,
  EarnBelowMinError,
  EarnBusyError,
  EarnOperationInProgressError,
  EarnServiceBusyError,
  EarnTierTooLowError,
  EarnInsufficientFundsError,
  EarnAboveMaxError,
  EarnAboveUserLimitError,
  EarnAboveStrategyLimitError,
  UnknownOrderError,
  OrderNotOpenError,
];

// Longest prefix first, so `EGeneral:Invalid arguments:Index unavailable` beats its parent.
const BY_PREFIX = [...ERROR_CLASSES].sort((a, b) => b.prefix.length - a.prefix.length);

/** Maps an `E...` string to its class; unknown strings become UnknownExchangeError. */
export function toExchangeError(parts: ErrorParts, context: Context): ExchangeError {
  const raw = parts.raw;
  for (const cls of BY_PREFIX) {
    if (
      raw === cls.prefix ||
      raw.startsWith(`${cls.prefix}:`) ||
      raw.startsWith(`${cls.prefix}.`)
    ) {
      return new cls(parts, context);
    }
  }
  return new UnknownExchangeError(parts, context);
}

/** Builds the typed error for an exchange string, e.g. for checks the client makes itself. */
export function errorFromString(raw: string, context: Context): ExchangeError {
  return toExchangeError(parseErrorString(raw), context);
}
