export {
  createLogger,
  silentLogger,
  REDACT_PATHS,
  type Logger,
  type LoggerSetup,
} from './logger.js';
export {
  checkPortFree,
  startHttpServer,
  type HttpServerOptions,
  type HttpTokens,
  type RouteAnswer,
  type RouteRequest,
  type Routes,
  type RunningHttpServer,
} from './http-server.js';
export {
  isLoopbackHost,
  parsePublicOrigin,
  parseTrustedProxies,
  reachableFromElsewhere,
} from './request-origin.js';
export { createMetricsRegistry } from './metrics-registry.js';
export { BearerToken } from './bearer-token.js';
export {
  HttpRefusals,
  LOCK_MS,
  WRONG_TOKENS_ALLOWED,
  type RefusalReason,
} from './http-refusals.js';
