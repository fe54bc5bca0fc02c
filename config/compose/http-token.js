// The compose stack's one-shot `http-token`: puts the HTTP bearer tokens where makerd and
// Prometheus read them. The control token (halt, resume, pull, restore; volume http-token) is
// read by makerd only; the read token (status, metrics, the console's stream; volume read-token)
// by makerd and Prometheus. Each is its Docker secret when one is given, else a random one made on
// the first start and kept. Running it again after a secret changed rotates that token: makerd
// follows the file, Prometheus reads it at each scrape. Any failure is one line saying what to
// do, exit 1 (makerd, which waits for this one-shot, then does not start).
//
// Usage: node http-token.js [SECRET_FILE OUT_FILE [READ_SECRET_FILE READ_OUT_FILE]]
// (no arguments: the compose stack's paths for both).
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** makerd refuses a shorter token off loopback (src/daemon/http-tokens.ts, MIN_TOKEN_LENGTH). */
const MIN_LENGTH = 32;
// The control token only for makerd (uid 1000, as this one-shot); the read token for Prometheus
// too, which runs as another user.
const TOKENS = [
  {
    variable: 'MAKERD_HTTP_TOKEN_FILE',
    secret: '/run/secrets/makerd_http_token',
    out: '/run/makerd/http-token',
    mode: 0o600,
  },
  {
    variable: 'MAKERD_HTTP_READ_TOKEN_FILE',
    secret: '/run/secrets/makerd_http_read_token',
    out: '/run/makerd-read/read-token',
    mode: 0o644,
  },
];
const args = process.argv.slice(2);
const tokens =
  args.length === 0
    ? TOKENS
    : TOKENS.slice(0, Math.ceil(args.length / 2)).map((t, i) => ({
        ...t,
        secret: args[2 * i] ?? t.secret,
        out: args[2 * i + 1] ?? t.out,
      }));

function fail(what, err) {
  console.error(`http-token: ${what}${err === undefined ? '' : ` (${err.code ?? err.message})`}`);
  process.exit(1);
}

for (const { variable, secret, out, mode } of tokens) {
  let given = '';
  try {
    given = readFileSync(secret, 'utf8').trim();
  } catch (err) {
    // ENOENT: no secret given (the stack mounts an empty placeholder then, or nothing).
    if (err.code !== 'ENOENT') {
      fail(
        `cannot read the token secret ${secret}: make the file ${variable} names ` +
          'readable by the container user (uid 1000), e.g. chmod 644, or unset it to generate one',
        err,
      );
    }
  }
  if (given !== '' && given.length < MIN_LENGTH) {
    fail(
      `the token in ${variable} has ${given.length} characters; makerd needs at least ` +
        `${MIN_LENGTH} (openssl rand -hex 32 makes one)`,
    );
  }
  try {
    if (given !== '') {
      // A new file renamed over the old: makerd and Prometheus never read half a token.
      writeFileSync(`${out}.new`, `${given}\n`, { mode });
      renameSync(`${out}.new`, out);
    } else {
      try {
        writeFileSync(out, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode });
      } catch (err) {
        if (err.code !== 'EEXIST') throw err;
      }
    }
  } catch (err) {
    fail(`cannot write ${out}: its volume must be writable by uid 1000`, err);
  }
}
