import { randomUUID } from 'node:crypto';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other test (or run) shares, so tests never see each other's keys. */
export function freshPrefix(): string {
  return `makerd-test-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `${prefix}:`. */
export { deleteKeysUnder as deleteKeys } from '../../src/bus/index.js';
