import { readFile } from 'node:fs/promises';
import { Decimal, InvalidInputError } from '../../core/index.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from '../../sim/defaults.js';
import { routesFor } from '../../sim/endpoints/index.js';
import { toJson } from '../../sim/http/json.js';
import { Router } from '../../sim/http/router.js';
import { SimServer } from '../../sim/http/server.js';
import { createSimContext } from '../../sim/simulator.js';
import { ReplayClock } from '../replay/replay-clock.js';

/** The rules of the pair an import writes, and the AssetPairs answer that carries them. */
export interface ImportPair {
  /** The exchange's pair id (the key of its AssetPairs entry), e.g. XXBTZUSD. */
  readonly id: string;
  readonly altname: string;
  readonly tick: Decimal;
  readonly lotDecimals: number;
  /** An AssetPairs answer holding this pair only, as the exchange would send it (JSON text). */
  readonly assetPairsBody: string;
}

/** Fields the replay builds the pair from (src/lab/replay/replay-venue.ts). */
const REQUIRED = [
  'altname',
  'wsname',
  'base',
  'quote',
  'pair_decimals',
  'lot_decimals',
  'cost_decimals',
  'ordermin',
  'costmin',
  'tick_size',
  'fees',
  'fees_maker',
] as const;

/**
 * The pair's rules: the entry of an AssetPairs answer in `file` (the exchange's answer as it
 * sent it, or its `result`), else the simulator's own answer for a pair it knows. Its assets must
 * be ones the replay knows. Every refusal is one line naming the flag.
 */
export async function importPairRules(pair: string, file?: string): Promise<ImportPair> {
  const [id, entry] = file === undefined ? await defaultEntry(pair) : await fileEntry(pair, file);
  const flag = file === undefined ? '--pair' : '--asset-pairs';
  for (const field of REQUIRED) {
    if (entry[field] === undefined) {
      throw new InvalidInputError(flag, `pair ${pair} has no ${field} in ${file ?? 'its rules'}`);
    }
  }
  const known = DEFAULT_ASSETS.map((a) => a.id);
  for (const asset of [entry['base'], entry['quote']]) {
    if (!known.includes(String(asset))) {
      throw new InvalidInputError(
        flag,
        `pair ${pair} trades asset ${String(asset)}, which the replay does not know (known: ${known.join(', ')})`,
      );
    }
  }
  let tick: Decimal;
  try {
    tick = new Decimal(String(entry['tick_size']));
  } catch {
    tick = new Decimal(0);
  }
  const lotDecimals = Number(entry['lot_decimals']);
  if (!tick.gt(0) || !Number.isInteger(lotDecimals) || lotDecimals < 0) {
    throw new InvalidInputError(flag, `pair ${pair}: tick_size and lot_decimals must be positive`);
  }
  return {
    id,
    altname: String(entry['altname']),
    tick,
    lotDecimals,
    assetPairsBody: JSON.stringify({ error: [], result: { [id]: entry } }),
  };
}

type Entry = Record<string, unknown>;

/** The simulator's AssetPairs answer for one of its default pairs, as its server sends it. */
async function defaultEntry(pair: string): Promise<[string, Entry]> {
  const known = DEFAULT_PAIRS.find((p) => [p.altname, p.id, p.wsname].includes(pair.toUpperCase()));
  if (known === undefined) {
    throw new InvalidInputError(
      '--pair',
      `${pair} is not a pair makerd knows the rules of (${DEFAULT_PAIRS.map((p) => p.altname).join(', ')}); give its AssetPairs answer with --asset-pairs FILE`,
    );
  }
  const { ctx, runTicks } = createSimContext({
    clock: new ReplayClock(0),
    config: { background: { enabled: false } },
  });
  const router = new Router();
  router.add(routesFor(ctx));
  const server = new SimServer(ctx, router, runTicks);
  const answer = await server.handle({
    method: 'GET',
    target: `/0/public/AssetPairs?pair=${known.altname}`,
    headers: { 'user-agent': 'makerd-import' },
    rawBody: Buffer.alloc(0),
    clientId: 'import',
    traceId: 'import',
  });
  const result = (JSON.parse(toJson(answer.body)) as { result: Record<string, Entry> }).result;
  return [known.id, result[known.id] as Entry];
}

async function fileEntry(pair: string, file: string): Promise<[string, Entry]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InvalidInputError(
      '--asset-pairs',
      `${file}: ${code ?? 'not JSON (an AssetPairs answer, or its result)'}`,
    );
  }
  const answer = parsed as { result?: unknown };
  const pairs = (
    typeof answer === 'object' && answer !== null && 'result' in answer ? answer.result : parsed
  ) as Record<string, Entry> | null;
  if (typeof pairs !== 'object' || pairs === null || Array.isArray(pairs)) {
    throw new InvalidInputError('--asset-pairs', `${file}: not an AssetPairs answer`);
  }
  const want = pair.toUpperCase();
  const found = Object.entries(pairs).find(
    ([id, p]) =>
      id.toUpperCase() === want ||
      String(p['altname']).toUpperCase() === want ||
      String(p['wsname']).toUpperCase() === want,
  );
  if (found === undefined) {
    const names = Object.values(pairs).map((p) => String(p['altname']));
    throw new InvalidInputError(
      '--asset-pairs',
      `${file} has no pair ${pair} (it holds ${names.join(', ') || 'none'})`,
    );
  }
  return found;
}
