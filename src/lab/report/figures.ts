import { dec, type DecimalString } from '../../core/index.js';

/** How the tables write the report's figures. Money stays the exact text it came as. */

const DASH = '—';

/** 2026-11-27 05:00:00 UTC */
export function utcTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** 2026-11-27 04:10:00 to 04:10:12 UTC; the date once when both ends share it. */
export function utcSpan(fromMs: number, toMs: number): string {
  const from = utcTime(fromMs).slice(0, -4);
  const to = utcTime(toMs).slice(0, -4);
  if (from === to) return `${from} UTC`;
  return `${from} to ${to.slice(0, 10) === from.slice(0, 10) ? to.slice(11) : to} UTC`;
}

/** 1 h 02 min 03 s; 45 s; 2 d 3 h 00 min 00 s. */
export function duration(ms: number): string {
  const total = Math.round(ms / 1000);
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (v: number): string => String(v).padStart(2, '0');
  if (d > 0) return `${d} d ${h} h ${two(m)} min ${two(s)} s`;
  if (h > 0) return `${h} h ${two(m)} min ${two(s)} s`;
  if (m > 0) return `${m} min ${two(s)} s`;
  return `${s} s`;
}

/** Simulated time over wall time: 812× real time. */
export function speed(simulatedMs: number, wallMs: number): string {
  if (!(wallMs > 0)) return DASH;
  const x = simulatedMs / wallMs;
  return `${x >= 100 ? Math.round(x) : x.toPrecision(3)}× real time`;
}

export function fixed(value: number | null, digits: number, unit = ''): string {
  return value === null || !Number.isFinite(value) ? DASH : `${value.toFixed(digits)}${unit}`;
}

export function percent(share: number): string {
  return fixed(share * 100, 1, ' %');
}

/** Horizon label: 1 s, 500 ms, 2 min. */
export function horizon(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000 || ms % 60_000 !== 0) return `${ms / 1000} s`;
  return `${ms / 60_000} min`;
}

/** (replay − live) / |live| in %, exactly; undefined when live is zero and replay is not. */
export function differencePct(live: DecimalString, replay: DecimalString): number | undefined {
  const l = dec(live);
  const r = dec(replay);
  if (l.isZero()) return r.isZero() ? 0 : undefined;
  return r.minus(l).div(l.abs()).times(100).toNumber();
}

export function signedPct(value: number | undefined): string {
  if (value === undefined) return DASH;
  return `${value > 0 ? '+' : ''}${value.toFixed(1)} %`;
}
