export {
  type NonceSource,
  type NonceErrorCode,
  NonceError,
  MAX_NONCE,
  clockMillis,
} from './nonce-source.js';
export { InProcessNonceSource, type InProcessNonceSourceOptions } from './in-process.js';
export { RedisNonceSource, type RedisNonceSourceOptions, nonceKeyFor } from './redis.js';
