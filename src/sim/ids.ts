import { createHash, randomBytes } from 'node:crypto';

/**
 * Identifiers in the exchange's formats: order ids `OABCDE-FGHIJ-KLMNOP`, trade ids
 * `TABCDE-FGHIJ-KLMNOP`, ledger ids `LABCDE-FGHIJ-KLMNOP` (6-5-6 upper-case alphanumerics after
 * the prefix letter). Drawn from a counter so they are unique, then mixed so they do not sort by
 * time (clients must not rely on that, as with the real exchange).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export class IdFactory {
  #seq = 0;
  readonly #salt: number;

  constructor(seed?: number) {
    this.#salt = seed ?? randomBytes(4).readUInt32LE(0);
  }

  order(): string {
    return this.#make('O');
  }

  trade(): string {
    return this.#make('T');
  }

  ledger(): string {
    return this.#make('L');
  }

  /** Other references (withdrawals, transfers, exports): the same shape with their own letter. */
  ref(letter: string): string {
    return this.#make(letter);
  }

  #make(prefix: string): string {
    this.#seq += 1;
    // 10 scrambled characters, then the sequence number in 6 base-32 digits: unique by
    // construction, not sortable by eye.
    let x = Math.imul(this.#seq ^ this.#salt, 0x9e3779b1) >>> 0;
    let y = Math.imul(x ^ (x >>> 15), 0x85ebca6b) >>> 0;
    let body = '';
    for (let i = 0; i < 10; i++) {
      const src = i < 5 ? x : y;
      body += ALPHABET[(src >>> ((i % 5) * 5)) & 31];
      if (i === 4) x = Math.imul(y ^ (y >>> 13), 0xc2b2ae35) >>> 0;
    }
    y = this.#seq;
    let tail = '';
    for (let i = 0; i < 6; i++) {
      tail = (ALPHABET[y & 31] ?? 'A') + tail;
      y >>>= 5;
    }
    body += tail;
    return `${prefix}${body.slice(0, 5)}-${body.slice(5, 10)}-${body.slice(10)}`;
  }
}

/** Upper-case RFC 4648 base32 of a digest of `seed`, `length` characters (at most 51). */
export function base32Of(seed: string, length: number): string {
  const bytes = createHash('sha256').update(seed).digest();
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** A stable id in the exchange's 6-5-6 shape (`NT4EFBO-OWGI5-QLO7AG`) derived from `seed`. */
export function stableRef(letter: string, seed: string): string {
  const b = base32Of(seed, 16);
  return `${letter}${b.slice(0, 5)}-${b.slice(5, 10)}-${b.slice(10, 16)}`;
}

/** A stable lower-case UUID-shaped id derived from `seed`. */
export function stableUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
