import { Redis, type Command, type RedisOptions } from 'ioredis';

/** Commands awaiting their reply, over a connection and its duplicates. */
export interface InFlight {
  count: number;
  /** Commands sent since the connection was made (the benchmark's round trips). */
  sent: number;
}

/**
 * The backtest's Redis connection, counting commands awaiting their reply; its duplicates (the
 * tracker's transactions run on one) share the count. Every command, pipelines and transactions
 * included, goes through sendCommand, ioredis's documented entry. Replay time moves only when the
 * count is zero, so no answer is outrun by the clock.
 */
export class CountingRedis extends Redis {
  readonly inFlight: InFlight;

  constructor(
    options: RedisOptions & { url?: string },
    inFlight: InFlight = { count: 0, sent: 0 },
  ) {
    const { url, ...rest } = options;
    // lazyConnect: nothing is sent before the count exists.
    if (url === undefined) super({ ...rest, lazyConnect: true });
    else super(url, { ...rest, lazyConnect: true });
    this.inFlight = inFlight;
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const inFlight = this.inFlight;
    inFlight.count += 1;
    inFlight.sent += 1;
    const done = (): void => {
      inFlight.count -= 1;
    };
    command.promise.then(done, done);
    return super.sendCommand(command, stream);
  }

  override duplicate(override?: Partial<RedisOptions>): CountingRedis {
    return new CountingRedis({ ...this.options, ...override }, this.inFlight);
  }
}
