/**
 * The recording format (docs/backtest.md): what `makerd record` writes and `makerd backtest`
 * reads. One gzip file of JSON lines per pair, hour and writing process, under DIR/<altname>/;
 * key-wide answers (SystemStatus, OpenOrders) go under DIR/_key/. A file starts with a header line
 * and is only ever appended to. Each row holds one answer exactly as the exchange sent it: the body
 * is spliced in as raw JSON text, never re-serialised, so decimal strings and nanosecond integers
 * keep every digit, and replay parses it with the client's own parser.
 */

/**
 * The version this makerd writes. Version 2 added `BookUpdate` rows (an imported book at the
 * data's own resolution); a version-1 file holds none and reads the same, so both are read.
 */
export const RECORDING_VERSION = 2;
export const READABLE_VERSIONS: readonly number[] = [1, 2];

/** The folder of key-wide answers (not about one pair). */
export const KEY_FOLDER = '_key';

/**
 * The endpoints a recording holds: what the runner polls, and the pair rules at start. Two are not
 * exchange answers. `OwnOrders`, the bot's own resting orders as its tracker knows them, written
 * once a second while a trading daemon records (in OpenOrders' shape): replay takes them out of the
 * recorded book; the exchange's OpenOrders, polled every 30 s or so, is too stale for that.
 * `TradesGap`, public trades the Trades poll skipped because the budget could not fetch them in
 * time (trades-gap.ts): the reader reports each as a gap. `BookUpdate`, a book imported from
 * another source (src/lab/import) at its own resolution, every change rather than poll answers:
 * `{"snapshot":bool,"bids":[[price,volume],...],"asks":[...]}`, each volume the level's new total
 * ("0" removes it); a snapshot replaces the whole book.
 */
export const RECORDED_ENDPOINTS = [
  'Depth',
  'GroupedBook',
  'Level3',
  'Trades',
  'SystemStatus',
  'OpenOrders',
  'AssetPairs',
  'OwnOrders',
  'TradesGap',
  'BookUpdate',
] as const;
export type RecordedEndpoint = (typeof RECORDED_ENDPOINTS)[number];

export interface RecordingHeader {
  readonly makerd_recording: number;
  /** Pair altname, or KEY_FOLDER for key-wide files. */
  readonly pair: string;
  /** When the writing process started (ms since the epoch); one file per process and hour. */
  readonly sessionStartMs: number;
  /** The recorder's poll intervals and tier, so a reader can tell a gap from a slow poll. */
  readonly intervalsMs: Readonly<Partial<Record<RecordedEndpoint, number>>>;
  readonly tier: string;
}

/** One answer (or the lack of one: `error` set, `body` absent). */
export interface RecordedRow {
  /** When the request was sent (ms since the epoch, the recorder's clock). */
  readonly askedMs: number;
  /** When the answer arrived. */
  readonly receivedMs: number;
  readonly endpoint: RecordedEndpoint;
  /** Pair altname; undefined for key-wide answers. */
  readonly pair: string | undefined;
  /** The response body as the exchange sent it (JSON text, newlines removed). */
  readonly body?: string;
  /** Why there was no answer (a transport error's code and message; never a secret). */
  readonly error?: string;
}

/** JSON text may hold newlines only as whitespace between tokens: they become spaces. */
const NEWLINES = /[\r\n]+/g;

/** One row as a line (with its newline): the body's text spliced in, not re-serialised. */
export function encodeRow(row: RecordedRow): string {
  const head =
    `{"a":${row.askedMs},"t":${row.receivedMs},"e":${JSON.stringify(row.endpoint)}` +
    (row.pair === undefined ? '' : `,"p":${JSON.stringify(row.pair)}`) +
    (row.error === undefined ? '' : `,"x":${JSON.stringify(row.error)}`);
  if (row.body === undefined) return `${head}}\n`;
  return `${head},"b":${row.body.replace(NEWLINES, ' ')}}\n`;
}

const BODY_MARK = ',"b":';

/**
 * Reads one line back. The body stays text (its numbers are not touched); everything before it is
 * small and parsed with JSON.parse. Throws a RecordingLineError naming what is wrong.
 */
export function decodeRow(line: string): RecordedRow {
  const mark = line.indexOf(BODY_MARK);
  const headText = mark < 0 ? line : `${line.slice(0, mark)}}`;
  let head: unknown;
  try {
    head = JSON.parse(headText);
  } catch {
    throw new RecordingLineError('not a JSON object');
  }
  if (typeof head !== 'object' || head === null) throw new RecordingLineError('not an object');
  const h = head as Record<string, unknown>;
  const askedMs = h['a'];
  const receivedMs = h['t'];
  const endpoint = h['e'];
  const pair = h['p'];
  const error = h['x'];
  if (typeof askedMs !== 'number' || !Number.isFinite(askedMs)) {
    throw new RecordingLineError('"a" (asked at, ms) must be a number');
  }
  if (typeof receivedMs !== 'number' || !Number.isFinite(receivedMs)) {
    throw new RecordingLineError('"t" (received at, ms) must be a number');
  }
  if (typeof endpoint !== 'string') throw new RecordingLineError('"e" (endpoint) must be a string');
  if (!RECORDED_ENDPOINTS.includes(endpoint as RecordedEndpoint)) {
    throw new UnknownEndpointError(endpoint);
  }
  if (pair !== undefined && typeof pair !== 'string') {
    throw new RecordingLineError('"p" (pair) must be a string');
  }
  if (error !== undefined && typeof error !== 'string') {
    throw new RecordingLineError('"x" (error) must be a string');
  }
  let body: string | undefined;
  if (mark >= 0) {
    if (!line.endsWith('}')) throw new RecordingLineError('the body is cut short');
    body = line.slice(mark + BODY_MARK.length, -1);
  }
  return {
    askedMs,
    receivedMs,
    endpoint: endpoint as RecordedEndpoint,
    pair,
    ...(body === undefined ? {} : { body }),
    ...(error === undefined ? {} : { error }),
  };
}

export class RecordingLineError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RecordingLineError';
  }
}

/** A row of an endpoint this makerd does not know (a newer makerd's recording). */
export class UnknownEndpointError extends RecordingLineError {
  readonly endpoint: string;

  constructor(endpoint: string) {
    super(
      `unknown endpoint "${endpoint}" (this makerd reads ${RECORDED_ENDPOINTS.join(', ')}); its rows are skipped`,
    );
    this.endpoint = endpoint;
  }
}

/** The hour a row belongs to, as the file name's stamp: 2026-11-27T05. */
export function hourStamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13);
}

/** DIR-relative path of the file one process writes for one pair (or KEY_FOLDER) and hour. */
export function segmentPath(pair: string, hourMs: number, sessionStartMs: number): string {
  return `${pair}/${hourStamp(hourMs)}.${sessionStartMs}.jsonl.gz`;
}
