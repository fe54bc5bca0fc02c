// The compose stack's one-shot `alertmanager-config`: writes Alertmanager's configuration, the
// routing of config/alertmanager/alertmanager.yml with the receivers an operator sets in `.env`
// added to its receiver `operator`. Alertmanager expands no environment variables, and the
// image's 0.28 reads the webhook URL and the bot token from files where Debian's 0.25 (the tests,
// CI's stand-in image) cannot: so the values are written into the rendered file, which only this
// one-shot and Alertmanager mount. Receivers (none set: alerts only in Alertmanager's UI):
//
//   webhook   secret ALERT_WEBHOOK_URL_FILE (the URL, token included)
//   Telegram  secret ALERT_TELEGRAM_BOT_TOKEN_FILE and ALERT_TELEGRAM_CHAT_ID
//   e-mail    ALERT_EMAIL_TO, ALERT_EMAIL_FROM, ALERT_SMTP_SMARTHOST (host:port), and for SMTP
//             auth ALERT_SMTP_USERNAME with the secret ALERT_SMTP_PASSWORD_FILE
//
// Any failure is one line naming the variable, exit 1 (Alertmanager, which waits for this
// one-shot, then does not start). No secret is ever printed.
//
// Usage: node alertmanager-config.js [BASE] [OUT] [SECRETS_DIR] (defaults: the stack's paths).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

const base = process.argv[2] ?? '/etc/alertmanager/alertmanager.yml';
const out = process.argv[3] ?? '/run/makerd/alertmanager.yml';
const secrets = process.argv[4] ?? '/run/secrets';
const RECEIVER = 'operator';

function fail(message) {
  console.error(`alertmanager-config: ${message}`);
  process.exit(1);
}

const env = (name) => (process.env[name] ?? '').trim();

/** A Docker secret's content, trimmed; '' when the stack mounts its empty placeholder. */
function secret(variable, name) {
  const path = join(secrets, name);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    if (err.code === 'ENOENT') return '';
    return fail(
      `${variable}: cannot read the secret ${path} (${err.code ?? err.message}): make the file ` +
        'readable by the container user (uid 1000), e.g. chmod 644',
    );
  }
}

/** Both set or both unset: the one set alone is named. */
function together(a, aValue, b, bValue) {
  if ((aValue === '') !== (bValue === '')) {
    const [set, unset] = aValue === '' ? [b, a] : [a, b];
    fail(`${unset} is not set but ${set} is: set both or neither`);
  }
  return aValue !== '';
}

function webhook() {
  const url = secret('ALERT_WEBHOOK_URL_FILE', 'alert_webhook_url');
  if (url === '') return undefined;
  // The URL carries the receiver's token: say what is wrong with it, never what it is.
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol) || /\s/.test(url)) {
    fail('ALERT_WEBHOOK_URL_FILE: the file does not hold one http(s) URL');
  }
  return { url, send_resolved: true };
}

function telegram() {
  const token = secret('ALERT_TELEGRAM_BOT_TOKEN_FILE', 'alert_telegram_bot_token');
  const chat = env('ALERT_TELEGRAM_CHAT_ID');
  if (!together('ALERT_TELEGRAM_BOT_TOKEN_FILE', token, 'ALERT_TELEGRAM_CHAT_ID', chat)) {
    return undefined;
  }
  if (/\s/.test(token)) fail('ALERT_TELEGRAM_BOT_TOKEN_FILE: the token has whitespace inside');
  const id = /^-?[1-9]\d{0,15}$/.test(chat) ? Number(chat) : NaN;
  if (!Number.isSafeInteger(id)) {
    fail(`ALERT_TELEGRAM_CHAT_ID: "${chat}" is not a Telegram chat ID (an integer)`);
  }
  return { bot_token: token, chat_id: id, send_resolved: true };
}

function email() {
  const to = env('ALERT_EMAIL_TO');
  const settings = {
    ALERT_EMAIL_FROM: env('ALERT_EMAIL_FROM'),
    ALERT_SMTP_SMARTHOST: env('ALERT_SMTP_SMARTHOST'),
    ALERT_SMTP_USERNAME: env('ALERT_SMTP_USERNAME'),
    ALERT_SMTP_PASSWORD_FILE: secret('ALERT_SMTP_PASSWORD_FILE', 'alert_smtp_password'),
  };
  if (to === '') {
    const set = Object.keys(settings).find((k) => settings[k] !== '');
    if (set !== undefined)
      fail(`ALERT_EMAIL_TO is not set but ${set} is: set it, or unset the e-mail settings`);
    return undefined;
  }
  for (const name of ['ALERT_EMAIL_FROM', 'ALERT_SMTP_SMARTHOST']) {
    if (settings[name] === '') fail(`${name} is not set but ALERT_EMAIL_TO is: e-mail needs it`);
  }
  const smarthost = settings.ALERT_SMTP_SMARTHOST;
  if (!/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/.test(smarthost)) {
    fail(`ALERT_SMTP_SMARTHOST: "${smarthost}" is not host:port (e.g. smtp.example.com:587)`);
  }
  const config = { to, from: settings.ALERT_EMAIL_FROM, smarthost, send_resolved: true };
  const user = settings.ALERT_SMTP_USERNAME;
  const password = settings.ALERT_SMTP_PASSWORD_FILE;
  if (together('ALERT_SMTP_USERNAME', user, 'ALERT_SMTP_PASSWORD_FILE', password)) {
    Object.assign(config, { auth_username: user, auth_password: password });
  }
  return config;
}

let text = '';
try {
  text = readFileSync(base, 'utf8');
} catch (err) {
  fail(`cannot read the routing ${base} (${err.code ?? err.message})`);
}
let config;
try {
  config = parse(text);
} catch (err) {
  fail(`${base} is not YAML: ${err.message.split('\n')[0]}`);
}
const receiver = (config?.receivers ?? []).find((r) => r?.name === RECEIVER);
if (receiver === undefined) fail(`${base} has no receiver named ${RECEIVER} to add receivers to`);

const added = [];
for (const [name, field, make] of [
  ['webhook', 'webhook_configs', webhook],
  ['telegram', 'telegram_configs', telegram],
  ['email', 'email_configs', email],
]) {
  const settings = make();
  if (settings === undefined) continue;
  receiver[field] = [...(receiver[field] ?? []), settings];
  added.push(name);
}

const header =
  '# Written by config/compose/alertmanager-config.js from config/alertmanager/alertmanager.yml\n' +
  '# and the ALERT_* settings of .env: change those, not this file. It holds their secrets.\n';
try {
  writeFileSync(out, header + stringify(config), { mode: 0o644 });
} catch (err) {
  fail(
    `cannot write ${out}: the alertmanager-config volume must be writable by uid 1000 (${err.code ?? err.message})`,
  );
}
console.log(
  `alertmanager-config: receiver ${RECEIVER}: ` +
    (added.length > 0 ? added.join(', ') : 'none set (alerts only in the UI, nothing sent)'),
);
