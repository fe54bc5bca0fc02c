/** The slice of a pino logger the market feed uses; a pino child logger satisfies it. */
export interface MarketLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  error(fields: Record<string, unknown>, msg: string): void;
}

export const silentMarketLog: MarketLog = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
