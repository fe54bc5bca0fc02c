// The compose stack's one-shot `http-token`: puts the HTTP bearer token where makerd and
// Prometheus read it. The token is the Docker secret when one is given, else a random one made on
// the first start and kept. Any failure is one line saying what to do, exit 1 (makerd, which
// waits for this one-shot, then does not start).
//
// Usage: node http-token.js [SECRET_FILE] [OUT_FILE] (defaults: the compose stack's paths).
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';

const secret = process.argv[2] ?? '/run/secrets/makerd_http_token';
const out = process.argv[3] ?? '/run/makerd/http-token';

function fail(what, err) {
  console.error(`http-token: ${what} (${err.code ?? err.message})`);
  process.exit(1);
}

let given = '';
try {
  given = readFileSync(secret, 'utf8').trim();
} catch (err) {
  // ENOENT: no secret given (the stack mounts an empty placeholder then, or nothing).
  if (err.code !== 'ENOENT') {
    fail(
      `cannot read the token secret ${secret}: make the file MAKERD_HTTP_TOKEN_FILE names ` +
        'readable by the container user (uid 1000), e.g. chmod 644, or unset it to generate one',
      err,
    );
  }
}
try {
  if (given !== '') {
    writeFileSync(out, `${given}\n`);
    chmodSync(out, 0o644);
  } else {
    try {
      writeFileSync(out, `${randomBytes(32).toString('hex')}\n`, {
        flag: 'wx',
        mode: 0o644,
      });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
} catch (err) {
  fail(`cannot write ${out}: the http-token volume must be writable by uid 1000`, err);
}
