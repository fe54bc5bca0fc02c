import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import { parse } from 'yaml';
import { BotConfig, loadBotConfig, parseBotConfig } from '../../src/daemon/bot-config.js';
import { resolveCredentials } from '../../src/daemon/credentials.js';
import { parseWithSchema } from '../../src/core/index.js';
import { ExecutorConfig } from '../../src/executor/config.js';
import { MarketConfig } from '../../src/market/config.js';
import { RunnerConfig } from '../../src/runner/config.js';
import { SupervisorConfig } from '../../src/safety/config.js';
import { RiskConfig } from '../../src/safety/risk-config.js';
import avellanedaStoikov from '../../strategies/avellaneda-stoikov.js';
import glft from '../../strategies/glft.js';
import spread from '../../strategies/spread.js';

/**
 * config/default.yaml is the documented reference of every option: these tests keep it complete
 * and equal to the schemas' defaults, so an option added to a schema without documentation fails
 * here, by name. config/live.example.yaml must stay loadable and safe to start from.
 */

const DEFAULT_YAML = fileURLToPath(new URL('../../config/default.yaml', import.meta.url));
const LIVE_YAML = fileURLToPath(new URL('../../config/live.example.yaml', import.meta.url));

const defaultText = readFileSync(DEFAULT_YAML, 'utf8');
const defaultDoc = parse(defaultText) as Record<string, unknown>;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** `name:` on a comment line, as an option shown commented out (`# max_base: '0.5'`). */
function commentedKey(text: string, name: string): boolean {
  return new RegExp(`^[ \\t]*#[ \\t]*(?:- )?${name}:`, 'm').test(text);
}

/** A real (uncommented) key anywhere in the YAML, or a commented-out one. */
function mentionedKey(text: string, name: string): boolean {
  return new RegExp(`^[ \\t]*(?:#[ \\t]*)?(?:- )?${name}:`, 'm').test(text);
}

/** Paths of `effective` (recursively) that are not keys of `doc`, strategy options excepted. */
function missingKeys(effective: unknown, doc: unknown, path: string): string[] {
  if (Array.isArray(effective)) {
    const items = Array.isArray(doc) ? (doc as unknown[]) : [];
    return effective.flatMap((item, i) => missingKeys(item, items[i], `${path}[${i}]`));
  }
  if (!isObject(effective)) return [];
  const missing: string[] = [];
  for (const [key, value] of Object.entries(effective)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (!isObject(doc) || !Object.hasOwn(doc, key)) {
      missing.push(at);
      continue;
    }
    // Strategy options belong to the plugin's schema, checked separately below.
    if (/^pairs\[\d+\]\.strategy\.options$/.test(at)) continue;
    missing.push(...missingKeys(value, doc[key], at));
  }
  return missing;
}

interface OptionalOption {
  readonly name: string;
  readonly path: string;
}

/** Properties that are neither required nor defaulted: off unless configured. */
function optionalWithoutDefault(schema: TSchema, path: string): OptionalOption[] {
  const s = schema as TSchema & {
    properties?: Record<string, TSchema>;
    required?: string[];
    anyOf?: TSchema[];
    items?: TSchema | TSchema[];
    patternProperties?: Record<string, TSchema>;
    additionalProperties?: boolean | TSchema;
  };
  const found: OptionalOption[] = [];
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const at = path === '' ? name : `${path}.${name}`;
    if (!(s.required ?? []).includes(name) && !('default' in prop)) found.push({ name, path: at });
    found.push(...optionalWithoutDefault(prop, at));
  }
  for (const member of s.anyOf ?? []) found.push(...optionalWithoutDefault(member, path));
  if (s.items !== undefined && !Array.isArray(s.items)) {
    found.push(...optionalWithoutDefault(s.items, `${path}[]`));
  }
  for (const value of Object.values(s.patternProperties ?? {})) {
    found.push(...optionalWithoutDefault(value, `${path}.<key>`));
  }
  if (isObject(s.additionalProperties)) {
    found.push(...optionalWithoutDefault(s.additionalProperties, `${path}.<key>`));
  }
  return found;
}

describe('config/default.yaml', () => {
  const pairs = defaultDoc.pairs;

  it('holds exactly the schema defaults', () => {
    assert.ok(Array.isArray(pairs) && pairs.length === 1, 'one pairs entry');
    const loaded = loadBotConfig(DEFAULT_YAML, {});
    assert.deepEqual(loaded, parseBotConfig({ pairs }, {}));
  });

  it('sets every option of the effective configuration as a real key', () => {
    const effective = parseBotConfig({ pairs }, {});
    const missing = missingKeys(effective, defaultDoc, '');
    assert.deepEqual(
      missing,
      [],
      `options missing from config/default.yaml: ${missing.join(', ')}`,
    );
  });

  it('shows every option that is off unless set as a commented-out key', () => {
    const schemas: [TSchema, string][] = [
      [BotConfig, ''],
      [MarketConfig, 'market'],
      [RunnerConfig, 'runner'],
      [ExecutorConfig, 'executor'],
      [SupervisorConfig, 'supervisor'],
      [RiskConfig, 'supervisor.risk'],
    ];
    const options = new Map<string, OptionalOption>();
    for (const [schema, root] of schemas) {
      for (const o of optionalWithoutDefault(schema, root)) options.set(o.path, o);
    }
    // The walk must see the risk limits at least, or it proves nothing.
    const names = new Set([...options.values()].map((o) => o.name));
    for (const name of ['limits', 'max_base', 'max_open_orders', 'max_loss', 'fill_rate']) {
      assert.ok(names.has(name), `schema walk did not find ${name}`);
    }
    const missing = [...options.values()]
      .filter((o) => !commentedKey(defaultText, o.name))
      .map((o) => o.path);
    assert.deepEqual(
      missing,
      [],
      `options without a default not shown commented out in config/default.yaml: ${missing.join(', ')}`,
    );
  });

  it("sets the spread strategy's options to its defaults and documents the built-in strategies' options", () => {
    const entry = (pairs as Json[])[0] as Json;
    const strategy = entry.strategy as Json;
    assert.equal(strategy.name, 'spread');
    const defaults = parseWithSchema(spread.options, {}, 'options');
    assert.deepEqual(strategy.options, defaults);
    for (const plugin of [spread, avellanedaStoikov, glft]) {
      const props = (plugin.options as TSchema & { properties: Record<string, TSchema> })
        .properties;
      const missing = Object.keys(props).filter((name) => !mentionedKey(defaultText, name));
      assert.deepEqual(missing, [], `${plugin.name} options not documented: ${missing.join(', ')}`);
    }
  });
});

describe('config/live.example.yaml', () => {
  const env = { MAKERD_API_KEY: 'dummy-key', MAKERD_API_SECRET: 'ZHVtbXktc2VjcmV0' };

  it('loads, and takes the key and secret from the environment', () => {
    const settings = loadBotConfig(LIVE_YAML, env);
    assert.equal(settings.exchange.credentials.from, 'env');
    assert.deepEqual(resolveCredentials(settings.exchange, env), {
      apiKey: env.MAKERD_API_KEY,
      apiSecret: env.MAKERD_API_SECRET,
    });
  });

  it('points at a remote exchange over https', () => {
    const url = new URL(loadBotConfig(LIVE_YAML, env).exchange.url);
    assert.equal(url.protocol, 'https:');
    assert.ok(
      !['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0'].includes(url.hostname) &&
        !url.hostname.startsWith('127.'),
      `exchange.url is loopback: ${url.hostname}`,
    );
  });

  it('sets the loss limits and a max_base for every pair, and resumes only by an operator', () => {
    const settings = loadBotConfig(LIVE_YAML, env);
    const risk = settings.supervisor.risk;
    assert.ok(risk.max_loss !== undefined, 'supervisor.risk.max_loss');
    assert.ok(risk.max_daily_loss !== undefined, 'supervisor.risk.max_daily_loss');
    assert.ok(risk.fill_rate !== undefined, 'supervisor.risk.fill_rate');
    assert.equal(settings.supervisor.resume, 'operator');
    assert.equal(settings.http.host, '127.0.0.1');
    for (const { pair } of settings.pairs) {
      const maxBase = risk.pairs[pair]?.max_base ?? risk.limits?.max_base;
      assert.ok(maxBase !== undefined, `no max_base for ${pair}`);
    }
  });

  it('gives each pair strategy options its plugin accepts', () => {
    const plugins = new Map<string, TSchema>([
      [spread.name, spread.options],
      [avellanedaStoikov.name, avellanedaStoikov.options],
    ]);
    const settings = loadBotConfig(LIVE_YAML, env);
    settings.pairs.forEach(({ strategy }, i) => {
      const schema = plugins.get(strategy.name);
      assert.ok(schema !== undefined, `pairs[${i}]: not a built-in strategy: ${strategy.name}`);
      parseWithSchema(schema, strategy.options, `pairs[${i}].strategy.options`);
    });
  });
});
