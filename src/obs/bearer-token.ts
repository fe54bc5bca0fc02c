import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { InvalidInputError, silentLog, type Log } from '../core/index.js';

/**
 * Where a token comes from: an environment variable's value (fixed for the process's life), or a
 * file the variable `<NAME>_FILE` names (a Docker secret), re-read when it changes.
 */
export type TokenSource =
  | { readonly variable: string; readonly value: string }
  | { readonly variable: string; readonly file: string };

export interface BearerTokenOptions {
  /** Shorter tokens are refused (at start: thrown; in a rotated file: the old one stays). */
  readonly minLength: number;
  /** Where a rotated file that cannot be used is reported. */
  readonly log?: Log;
}

/**
 * A bearer token the HTTP endpoint accepts. A token in a file follows the file: every check looks
 * at the file's identity, size and time first and reads it again when one changed, so writing a
 * new token there (or `reload()`, on SIGHUP) rotates it without a restart. A new content that
 * cannot be used (unreadable, empty, too short: a write caught half done) leaves the previous
 * token in force and says so. The token is never logged and never part of an error.
 */
export class BearerToken {
  /** The variable an operator sets: `NAME`, or `NAME_FILE` for a token in a file. */
  readonly variable: string;
  readonly #file: string | undefined;
  readonly #minLength: number;
  readonly #log: Log;
  /** SHA-256 of `Bearer <token>`: compared digest to digest, so no length shows in the time. */
  #digest: Buffer;
  /** The file's identity, size and time when last read. */
  #stamp: string | undefined;

  constructor(source: TokenSource, options: BearerTokenOptions) {
    this.variable = source.variable;
    this.#minLength = options.minLength;
    this.#log = options.log ?? silentLog;
    if ('file' in source) {
      this.#file = source.file;
      this.#stamp = stampOf(source.file);
      this.#digest = this.#checked(this.#read(source.file));
    } else {
      this.#file = undefined;
      this.#digest = this.#checked(source.value);
    }
  }

  /** Whether an Authorization header carries this token; compared in constant time. */
  accepts(header: string | undefined): boolean {
    if (this.#file !== undefined && stampOf(this.#file) !== this.#stamp) this.reload();
    return timingSafeEqual(digest(header ?? ''), this.#digest);
  }

  /** Reads the file again now (SIGHUP); a token from a variable stays as it is. */
  reload(): void {
    const file = this.#file;
    if (file === undefined) return;
    this.#stamp = stampOf(file);
    try {
      this.#digest = this.#checked(this.#read(file));
    } catch (err) {
      this.#log.error(
        { variable: this.variable, file, why: (err as Error).message },
        'token file not taken: the previous token stays in force',
      );
    }
  }

  #read(file: string): string {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new InvalidInputError(
        this.variable,
        `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  }

  #checked(token: string): Buffer {
    if (token.length < this.#minLength) {
      throw new InvalidInputError(
        this.variable,
        token === ''
          ? 'the token is empty'
          : `the token is ${token.length} characters long; off loopback a token needs at least ` +
              `${this.#minLength} (openssl rand -hex 32 makes one)`,
      );
    }
    return digest(`Bearer ${token}`);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** What changes when a file is replaced or rewritten; `missing` while it cannot be seen. */
function stampOf(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}
