/**
 * What the operator console's page receives (GET /console/stream, Server-Sent Events). The page
 * (console/ at the repository root, bundled to dist/console by `npm run build`) imports these
 * types only. Amounts are exact decimal strings as everywhere in makerd; times are ms since the
 * Unix epoch on the daemon's clock.
 *
 * Events on the stream:
 *   `history`  once on connect: ConsoleHistory (the last hour per pair).
 *   `state`    once on connect: ConsoleState (the deployment now, plus each pair's newest chart
 *              point and its newest fills; the page appends points and adds fills it has not
 *              seen, by id).
 *   `patch`    about once a second: what changed since the state the page was sent last, to
 *              apply to it with applyStatePatch (state-patch.ts) for the newest ConsoleState.
 */

export interface ConsoleState {
  readonly atMs: number;
  readonly instance: string;
  readonly halt: {
    readonly halted: boolean;
    readonly reason?: string;
    /** Who set it: `operator:console (alice)`, `supervisor:emergency`, ... */
    readonly by?: string;
    readonly sinceMs?: number;
  };
  /** Liveness beats of the deployment's roles (any process). */
  readonly roles: Readonly<Record<'runner' | 'executor' | 'supervisor', RoleLiveness>>;
  /** The supervisor's last report; absent: no supervisor running (no dead-man switch). */
  readonly supervisor?: {
    /** The exchange's SystemStatus: online, maintenance, cancel_only, post_only, unknown. */
    readonly exchange: string;
    /** What makerd does about it: normal, cancel_only, post_only, maintenance, emergency. */
    readonly posture: string;
    /** When the exchange cancels every order unless makerd's heartbeat comes first. */
    readonly deadManTriggerAtMs?: number;
    /** 'ok', 'unchecked', or the breach that halted makerd. */
    readonly risk: string;
    /** The key's REST call counter. */
    readonly rest?: Level;
    /** The next announced maintenance window, if any. */
    readonly nextMaintenance?: {
      readonly title: string;
      readonly startMs: number;
      readonly endMs?: number;
    };
  };
  readonly pairs: readonly ConsolePair[];
  /** Since when each pair's `pnl` counts: the running runner's start; absent without a runner. */
  readonly pnlSinceMs?: number;
  /** Recent warnings and errors of every process, newest first (at most 50). */
  readonly events: readonly ConsoleEvent[];
  /** The audit trail's newest entries (halts, resumes, pulls, restores), newest first. */
  readonly audit: readonly ConsoleAuditEntry[];
}

export interface RoleLiveness {
  readonly alive: boolean;
  readonly beatAgeMs?: number;
}

export interface Level {
  readonly level: number;
  readonly max: number;
}

export interface ConsolePair {
  /** Altname: XBTUSD. */
  readonly pair: string;
  readonly base: string;
  readonly quote: string;
  /** An executor process holds the pair (works its orders). */
  readonly executor: boolean;
  /** Pulled by an operator: the runner quotes nothing for it until resumed. */
  readonly pulled: boolean;
  /** The runner's trading mode for the pair (online, post_only, cancel_only, maintenance, halted) and why. */
  readonly mode?: string;
  readonly modeReason?: string;
  /** Best bid and ask of the book the runner last polled, and their mid. */
  readonly book?: { readonly bid?: string; readonly ask?: string; readonly mid?: string };
  /** Our resting orders, best first on each side. */
  readonly orders: readonly ConsoleOrder[];
  /** Base held, and the risk limit on it (supervisor.risk max_base) when one is set. */
  readonly inventory: { readonly base: string; readonly quote: string; readonly maxBase?: string };
  /** PnL split since the runner started (quote currency): total = spread + inventory − fees. */
  readonly pnl?: {
    readonly total: string;
    readonly spread: string;
    readonly inventory: string;
    readonly fees: string;
    readonly fills: number;
    /** Volume-weighted 10 s markout of our fills, bps (positive: the market moved our way). */
    readonly markout10sBps?: number;
  };
  /**
   * What the quotes are held to: the key's fees, the half-spread floor and its parts, and the
   * strategy's model figures (a fit's parameters); absent while the runner has not reported.
   */
  readonly quoting?: ConsoleQuoting;
  /**
   * The exchange's per-pair order-entry counter as makerd models it, and the level the executor
   * plans to use up to (max less executor.headroom_points): below it is the budget working.
   */
  readonly ratecount: Level & { readonly planned?: number };
  /**
   * Age of the newest answer per market-data source (depth, groupedBook, level3, trades...), and
   * the age past which the runner takes it for stale (market.stale_after_intervals times its
   * planned poll interval; absent from a runner that does not say).
   */
  readonly dataAges: readonly {
    readonly source: string;
    readonly ageMs: number;
    readonly staleAfterMs?: number;
  }[];
  /** The chart's newest point (absent while the runner has no book). */
  readonly point?: ChartPoint;
  /** Our newest fills (at most 20), newest first. */
  readonly fills: readonly ConsoleFill[];
}

export interface ConsoleQuoting {
  readonly makerFeeBps: string;
  readonly takerFeeBps: string;
  /** `trade-volume`: the key's own TradeVolume answer; `ladder`: the pair's published ladder. */
  readonly feeSource: 'trade-volume' | 'ladder';
  /** Absent when the strategy reports no floor. */
  readonly floor?: {
    readonly enabled: boolean;
    readonly halfSpreadBps: string;
    readonly makerFeeBps: string;
    readonly adverseBps: string;
    readonly minEdgeBps: string;
  };
  /** The fills the adverse selection is measured over (10 s markouts). */
  readonly adverseFills: number;
  readonly model?: Readonly<Record<string, number | string>>;
}

export interface ConsoleOrder {
  readonly side: 'buy' | 'sell';
  readonly price: string;
  /** Volume still open. */
  readonly volume: string;
  /** Distance from the best price on its side, in price levels (0: at the top). */
  readonly level?: number;
  /** Volume resting ahead of ours at its price, once known; absent until then. */
  readonly queueAhead?: string;
  /** How it is known: `level3` (exact) or an estimate from Depth and Trades by the named rule. */
  readonly queueSource?: 'level3' | 'depth';
  readonly queueRule?: string;
}

export interface ChartPoint {
  readonly tMs: number;
  readonly mid?: number;
  /** Our best resting bid and ask. */
  readonly bid?: number;
  readonly ask?: number;
}

export interface ConsoleFill {
  readonly id: string;
  readonly tMs: number;
  readonly side: 'buy' | 'sell';
  readonly price: string;
  readonly volume: string;
}

export interface ConsoleEvent {
  readonly tMs: number;
  readonly level: 'warn' | 'error';
  /** The process role that wrote it (runner, executor, supervisor, http...). */
  readonly source: string;
  readonly message: string;
  /** The pair it concerns (altname), the call or action (AddOrder...), and its cause (the exchange's error). */
  readonly pair?: string;
  readonly action?: string;
  readonly reason?: string;
}

/** One control action of the audit trail, as `makerd audit` lists it. */
export interface ConsoleAuditEntry {
  /** The Redis stream id. */
  readonly id: string;
  readonly tMs: number;
  /** Who: the name an operator gave, `user@host` of a shell, `supervisor`, `runner`. */
  readonly actor: string;
  /** Where it came in: console, http, cli, supervisor, runner. */
  readonly door: string;
  /** The caller's address (HTTP doors). */
  readonly remote?: string;
  /** halt, resume, pull or restore. */
  readonly action: string;
  readonly pair?: string;
  readonly reason?: string;
  /** False: nothing changed (already halted, nothing to resume...); `outcome` says why. */
  readonly changed: boolean;
  readonly outcome: string;
}

/** The last hour per pair, on connect. */
export interface ConsoleHistory {
  readonly pairs: readonly {
    readonly pair: string;
    readonly points: readonly ChartPoint[];
    readonly fills: readonly ConsoleFill[];
  }[];
}

/** GET /console/session: what the page needs before it opens the stream. */
export interface ConsoleSession {
  /** Whether requests need `Authorization: Bearer <token>` (the endpoint is not loopback). */
  readonly tokenRequired: boolean;
  /** Sent back as `X-Makerd-CSRF` on every POST (a cross-site page cannot read it). */
  readonly csrf: string;
  readonly instance: string;
}

/** POST bodies of the console's actions (JSON; each answers { ok: true, ... } or { error }). */
export interface HaltRequest {
  readonly reason: string;
  /** Who acts: a name the operator typed, kept in the audit line. */
  readonly operator: string;
}
export interface ResumeRequest {
  readonly operator: string;
}
export interface PullPairRequest {
  readonly pair: string;
  readonly operator: string;
}
