import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidInputError } from '../core/index.js';
import type { CredentialsInput } from '../exchange/index.js';
// config.js, not sim/index.js: the barrel would load the whole simulator into makerd.
import { loadSimConfig } from '../sim/config.js';
import { secretIsSet, type BotSettings } from './bot-config.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Where a simulator may run: this machine, or a single-label name (a container on the same
 * compose network, `http://sim:7878`). A public exchange always has a dotted name or an address.
 */
function simulatorHost(host: string): boolean {
  return LOOPBACK.has(host) || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(host);
}

/**
 * The API key and secret, from where the config says. The values are returned, never logged;
 * errors name the variable or file, never its content.
 */
export function resolveCredentials(
  exchange: BotSettings['exchange'],
  env: NodeJS.ProcessEnv = process.env,
  baseDir = process.cwd(),
): CredentialsInput {
  const source = exchange.credentials;
  if (source.from === 'env') {
    return {
      apiKey: secretFromEnv(source.key_env, env),
      apiSecret: secretFromEnv(source.secret_env, env),
    };
  }
  const host = new URL(exchange.url).hostname;
  if (!simulatorHost(host)) {
    throw new InvalidInputError(
      'exchange.credentials.from',
      `'simulator' credentials are for a simulator on this machine or a local container, but exchange.url points at ${host}; use 'env' for a real exchange`,
    );
  }
  const file = resolve(baseDir, source.sim_config);
  const account = loadSimConfig(file).accounts.find((a) => a.key === source.account);
  if (!account) {
    throw new InvalidInputError(
      'exchange.credentials.account',
      `no account ${JSON.stringify(source.account)} in ${file}`,
    );
  }
  return { apiKey: account.key, apiSecret: account.secret };
}

/** `NAME` holds the value, or `NAME_FILE` names a file holding it (Docker secrets). */
export function secretFromEnv(name: string, env: NodeJS.ProcessEnv): string {
  const direct = env[name];
  if (direct !== undefined && direct !== '') return direct;
  const file = env[`${name}_FILE`];
  if (file !== undefined && file !== '') {
    try {
      const value = readFileSync(file, 'utf8').trim();
      if (value !== '') return value;
    } catch (err) {
      throw new InvalidInputError(
        `${name}_FILE`,
        `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    throw new InvalidInputError(`${name}_FILE`, `${file} is empty`);
  }
  throw new InvalidInputError(
    name,
    `not set: export ${name} or point ${name}_FILE at a file holding it`,
  );
}

/** secretFromEnv, or undefined when neither `NAME` nor `NAME_FILE` is set. */
export function optionalSecretFromEnv(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return secretIsSet(name, env) ? secretFromEnv(name, env) : undefined;
}
