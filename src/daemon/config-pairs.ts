import { InvalidInputError, closestName } from '../core/index.js';
// config.js, not sim/index.js: the barrel would load the whole simulator.
import { loadSimConfig } from '../sim/config.js';
import { simulatorFile, type BotSettings } from './bot-config.js';

/**
 * The configured pairs, checked without asking the exchange (`makerd check-config` sends
 * nothing): a config that trades the simulator names the simulator's YAML, which lists its pairs;
 * a real exchange's pairs are known only from its AssetPairs, which every role asks at start and
 * where an unknown pair stops it. Returns where the pairs were checked, or undefined.
 */
export function checkPairsOffline(settings: BotSettings, configDir: string): string | undefined {
  const file = simulatorFile(settings, configDir);
  if (file === undefined) return undefined;
  const pairs = loadSimConfig(file).pairs;
  const names = new Set(pairs.flatMap((p) => [p.id, p.altname, p.wsname]).map(upper));
  const altnames = pairs.map((p) => p.altname).sort();
  settings.pairs.forEach(({ pair }, i) => {
    if (names.has(upper(pair))) return;
    const close = closestName(pair.trim(), altnames);
    throw new InvalidInputError(
      `pairs[${i}].pair`,
      `unknown pair ${JSON.stringify(pair)} on the simulator (${file}): ` +
        `${close === undefined ? '' : `did you mean ${close}? `}it lists ${altnames.join(', ')}`,
    );
  });
  return file;
}

const upper = (name: string): string => name.trim().toUpperCase();
