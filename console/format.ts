/**
 * Text for the page's figures. Amounts arrive as exact decimal strings and are rounded here as
 * strings (BigInt), never through floats; the page shows the exact value on hover.
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * `value` rounded half away from zero to `places` decimals, at least `minPlaces` of them kept
 * (trailing zeros beyond that dropped). Text that is not a plain decimal comes back unchanged.
 */
export function roundDecimal(value: string, places: number, minPlaces = places): string {
  const m = DECIMAL.exec(value);
  if (m === null) return value;
  const [, sign = '', int = '0', frac = ''] = m;
  let scaled = BigInt(int + frac.slice(0, places).padEnd(places, '0'));
  if ((frac[places] ?? '0') >= '5') scaled += 1n;
  const digits = scaled.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  let fraction = digits.slice(digits.length - places);
  while (fraction.length > minPlaces && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  const text = fraction === '' ? whole : `${whole}.${fraction}`;
  return scaled === 0n ? text : sign + text;
}

/**
 * An amount to `significant` digits, but never fewer than `minPlaces` decimals and never rounding
 * away a whole unit: 12.3456789 → 12.3457, 0.000123456789 → 0.000123457, 12345.678 → 12345.68
 * (significant 6, minPlaces 2). One rule for USD and for XBT-quoted pairs alike.
 */
export function formatAmount(value: string, minPlaces = 0, significant = 8): string {
  const m = DECIMAL.exec(value);
  if (m === null) return value;
  const int = (m[2] ?? '0').replace(/^0+/, '');
  const frac = m[3] ?? '';
  const leadingZeros = /^0*/.exec(frac)?.[0].length ?? 0;
  const places =
    int !== ''
      ? Math.max(0, significant - int.length)
      : leadingZeros === frac.length
        ? 0
        : leadingZeros + significant;
  return roundDecimal(value, Math.max(minPlaces, places), minPlaces);
}

/** The exact sum of decimal strings (BigInt, no float); text that is not a plain decimal is skipped. */
export function sumDecimals(values: readonly string[]): string {
  const parsed = values
    .map((v) => DECIMAL.exec(v))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, sign = '', int = '0', frac = '']) => ({ sign, int, frac }));
  const places = Math.max(0, ...parsed.map((p) => p.frac.length));
  let total = 0n;
  for (const { sign, int, frac } of parsed) {
    const scaled = BigInt(int + frac.padEnd(places, '0'));
    total += sign === '-' ? -scaled : scaled;
  }
  const digits = (total < 0n ? -total : total).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places);
  return `${total < 0n ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** -1, 0 or 1: the sign of a decimal string (0 for text that is not one). */
export function signOf(value: string): -1 | 0 | 1 {
  const m = DECIMAL.exec(value);
  if (m === null || !/[1-9]/.test(`${m[2] ?? ''}${m[3] ?? ''}`)) return 0;
  return m[1] === '-' ? -1 : 1;
}

/** With its sign always written (+ or the minus sign U+2212), for PnL figures. */
export function withSign(text: string): string {
  if (text.startsWith('-')) return `\u2212${text.slice(1)}`;
  return signOf(text) > 0 ? `+${text}` : text;
}

/** The decimal string with its sign flipped: fees are a cost, shown as −fees in the split. */
export function negate(value: string): string {
  if (signOf(value) === 0) return value;
  return value.startsWith('-') ? value.slice(1) : `-${value}`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** An age or a span: 0.4 s, 12 s, 3 min 05 s, 2 h 05 min, 3 d 4 h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const abs = Math.max(0, ms);
  if (abs < 10_000) return `${(abs / 1000).toFixed(1)} s`;
  const s = Math.floor(abs / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad2(s % 60)} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${pad2(Math.floor(s / 60) % 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor(s / 3600) % 24} h`;
}

/** A countdown in whole seconds, rounded up (it reads 0:00 only once the moment has come). */
export function formatCountdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const rest = `${pad2(Math.floor(s / 60) % 60)}:${pad2(s % 60)}`;
  return h > 0 ? `${h}:${rest}` : rest.replace(/^0/, '');
}

/** Time of day on the UTC clock, as the daemon's logs and the exchange's notices use. */
export function clockUtc(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Date and minute in UTC: 2026-11-27 04:00 UTC. */
function dateTimeUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Where now stands against a window: "in 4 h 59 min", "now, 35 min 00 s left", "over". */
export function windowRelation(startMs: number, endMs: number | undefined, nowMs: number): string {
  if (nowMs < startMs) return `in ${formatDuration(startMs - nowMs)}`;
  if (endMs === undefined) return 'now';
  return nowMs < endMs ? `now, ${formatDuration(endMs - nowMs)} left` : 'over';
}

/**
 * A window's span: 19:00–20:00 UTC on the day of `nowMs`, else with dates (2026-11-28 19:00–20:00
 * UTC; the end's date too when it falls on another day).
 */
export function windowSpan(startMs: number, endMs: number | undefined, nowMs: number): string {
  const start = dateTimeUtc(startMs);
  const day = start.slice(0, 11);
  const from = day === dateTimeUtc(nowMs).slice(0, 11) ? start.slice(11, -4) : start.slice(0, -4);
  if (endMs === undefined) return `from ${from} UTC`;
  const end = dateTimeUtc(endMs);
  return end.startsWith(day) ? `${from}–${end.slice(11)}` : `${from} – ${end}`;
}

export type Tone = 'ok' | 'warn' | 'bad';

/**
 * A market-data age against its own source's poll: bad past `staleAfterMs` (where the runner takes
 * it for stale: market.stale_after_intervals × the poll's interval), warn past two thirds of it
 * (polls missed), so a 120 s balance poll is fine at 100 s and a 1.5 s Depth poll is not at 4 s.
 * A runner that does not say: warn from 5 s, bad from 30 s.
 */
export function ageTone(ms: number, staleAfterMs?: number): Tone {
  if (staleAfterMs === undefined) return ms >= 30_000 ? 'bad' : ms >= 5_000 ? 'warn' : 'ok';
  return ms > staleAfterMs ? 'bad' : ms > (staleAfterMs * 2) / 3 ? 'warn' : 'ok';
}

/**
 * The ratecount against the executor's plan: it spends the budget up to `planned` (max less its
 * headroom) by design, so that is fine; beyond it the headroom is being used (cancels never wait),
 * and at the max the next order waits or is refused (a refusal sets the model full).
 */
export function ratecountTone(level: number, max: number, planned: number | undefined): Tone {
  if (planned === undefined) return shareTone(share(level, max));
  return level >= max ? 'bad' : level > planned ? 'warn' : 'ok';
}

/** Time left on the dead-man timer: below 20 s the heartbeat is late, below 5 s nearly missed. */
export function deadManTone(msLeft: number): Tone {
  return msLeft <= 5_000 ? 'bad' : msLeft <= 20_000 ? 'warn' : 'ok';
}

/** How full a counter or limit is (0 to 1, clamped): warn from 70 %, bad from 90 %. */
export function shareTone(share: number): Tone {
  return share >= 0.9 ? 'bad' : share >= 0.7 ? 'warn' : 'ok';
}

/** level / max as a share clamped to -1..1, the sign kept: a short position against its limit. */
export function signedShare(level: number, max: number): number {
  return Math.sign(level) * share(Math.abs(level), max);
}

/** level / max as a share clamped to 0..1 (0 when max is not positive). */
export function share(level: number, max: number): number {
  if (!(max > 0) || !Number.isFinite(level)) return 0;
  return Math.min(1, Math.max(0, level / max));
}

/** A percentage for a bar's label: 37 %. */
export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

/** Basis points with their sign: +1.2 bps, −0.4 bps. */
export function formatBps(bps: number): string {
  if (!Number.isFinite(bps)) return '—';
  const text = Math.abs(bps).toFixed(1);
  if (text === '0.0') return '0.0 bps';
  return `${bps < 0 ? '\u2212' : '+'}${text} bps`;
}

/** The book's spread in basis points of its mid (display only, so floats will do). */
export function spreadBps(bid: string, ask: string): number | undefined {
  const b = Number(bid);
  const a = Number(ask);
  if (!(b > 0) || !(a > 0)) return undefined;
  return ((a - b) / ((a + b) / 2)) * 10_000;
}

/** A counter against its maximum: 37.5 / 125 (counters decay, so a level may be fractional). */
export function formatLevel(level: number, max: number): string {
  return `${Number(level.toFixed(1))} / ${max}`;
}
