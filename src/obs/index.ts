export {
  createLogger,
  silentLogger,
  REDACT_PATHS,
  type Logger,
  type LoggerSetup,
} from './logger.js';
export {
  isLoopbackHost,
  startHttpServer,
  type HttpServerOptions,
  type RouteAnswer,
  type RouteRequest,
  type Routes,
  type RunningHttpServer,
} from './http-server.js';
export { createMetricsRegistry } from './metrics-registry.js';
