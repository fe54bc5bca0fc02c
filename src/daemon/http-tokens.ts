import type { Log } from '../core/index.js';
import { BearerToken, reachableFromElsewhere, type HttpTokens } from '../obs/index.js';
import type { BotSettings } from './bot-config.js';

/**
 * Off loopback (or behind a reverse proxy) a token shorter than this is refused: guessable tokens
 * must not guard a bot.
 */
const MIN_TOKEN_LENGTH = 32;

/** A token that rotates and the ones that do not: SIGHUP reads every token file again. */
export interface ProcessTokens extends HttpTokens {
  reload(): void;
}

/**
 * The endpoint's control and read tokens from the variables http.token_env and read_token_env
 * name: the value of `NAME`, or the file `NAME_FILE` names (followed as it changes). Reachable
 * from elsewhere, each must have MIN_TOKEN_LENGTH characters: one line naming the variable refuses
 * a shorter one.
 */
export function httpTokens(
  http: Pick<BotSettings['http'], 'host' | 'public_origin' | 'token_env' | 'read_token_env'>,
  env: NodeJS.ProcessEnv,
  log: Log,
): ProcessTokens {
  const minLength = reachableFromElsewhere(http.host, http.public_origin) ? MIN_TOKEN_LENGTH : 1;
  const token = (name: string): BearerToken | undefined => {
    const value = env[name] ?? '';
    const file = env[`${name}_FILE`] ?? '';
    if (value !== '') return new BearerToken({ variable: name, value }, { minLength, log });
    if (file === '') return undefined;
    return new BearerToken({ variable: `${name}_FILE`, file }, { minLength, log });
  };
  const control = token(http.token_env);
  const read = token(http.read_token_env);
  return {
    ...(control === undefined ? {} : { control }),
    ...(read === undefined ? {} : { read }),
    reload: () => {
      control?.reload();
      read?.reload();
    },
  };
}
