import { dirname, resolve } from 'node:path';
import { InvalidInputError } from '../core/index.js';
import { loadBotConfig, type BotSettings } from './bot-config.js';
import { packageFile } from './package-file.js';

/** `--config`, or the package's config/paper.yaml: the settings and the folder they came from. */
export function loadSettings(
  config: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): {
  readonly settings: BotSettings;
  readonly file: string;
  readonly dir: string;
} {
  const given = config ?? packageFile('config', 'paper.yaml');
  if (given === undefined) {
    throw new InvalidInputError('--config', 'no file given and no package config/paper.yaml found');
  }
  const file = resolve(given);
  return { settings: loadBotConfig(file, env), file, dir: dirname(file) };
}
