export {
  createLogger,
  silentLogger,
  REDACT_PATHS,
  type Logger,
  type LoggerSetup,
} from './logger.js';
