import { stringify } from 'yaml';
import type { BotSettings } from '../daemon/bot-config.js';
import { builtInStrategies } from '../daemon/package-file.js';
import { loadSettings } from '../daemon/settings-file.js';
import { checkStrategies } from '../daemon/runner-role.js';
import { checkPairsOffline } from '../daemon/config-pairs.js';
import { httpTokens } from '../daemon/http-tokens.js';
import { silentLog } from '../core/index.js';

/**
 * `makerd check-config`: the configuration as the daemon would run it (file, defaults and
 * environment overrides), as YAML. Secrets never live in the file; for each variable that may
 * hold one it says only whether it is set, and where from, never a character of the value.
 */
export async function checkConfig(opts: { config?: string }): Promise<void> {
  const { settings, file, dir } = loadSettings(opts.config);
  await checkStrategies(settings, builtInStrategies());
  const pairsFrom = checkPairsOffline(settings, dir);
  // Read as the endpoint reads them at start, so a token it would refuse (shorter than 32
  // characters off loopback, an unreadable file) is refused here too, not first at deployment.
  httpTokens(settings.http, process.env, silentLog);
  process.stdout.write(`# ${file}, defaults and environment applied\n`);
  process.stdout.write(
    pairsFrom === undefined
      ? "# pairs: not checked here (no call to the exchange); every role checks them against the exchange's AssetPairs at start\n"
      : `# pairs: checked against the simulator's ${pairsFrom}\n`,
  );
  process.stdout.write(stringify({ ...settings, secrets: secretsOf(settings, process.env) }));
}

/** Each secret's variable: `set`, `set (file)` or `not set`. */
export function secretsOf(settings: BotSettings, env: NodeJS.ProcessEnv): Record<string, string> {
  const names: string[] = [settings.http.token_env, settings.http.read_token_env];
  const creds = settings.exchange.credentials;
  if (creds.from === 'env') names.unshift(creds.key_env, creds.secret_env);
  const state = (name: string): string => {
    if ((env[name] ?? '') !== '') return 'set';
    if ((env[`${name}_FILE`] ?? '') !== '') return `set (file ${env[`${name}_FILE`] ?? ''})`;
    return 'not set';
  };
  return Object.fromEntries(names.map((n) => [n, state(n)]));
}
