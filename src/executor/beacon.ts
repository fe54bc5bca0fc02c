import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';

const PREFIX = 'makerd-exec-';
const SUFFIX = '.sock';

/**
 * Proof that an executor process has ended, so that a restarted one need not wait out the lease
 * TTL of its own dead predecessor (issue #32 item 3). Each executor listens on a Unix socket named
 * by a random id, which its leases carry. A kill -9 leaves the socket file behind with nothing
 * listening: connecting is refused. So a lease whose id names a socket file in our directory that
 * refuses connections was held by a process that shared our file system and has ended, and the
 * lease can be taken at once. Anything else (no such file: another machine or container, or a
 * directory we cannot see) proves nothing, and the lease is waited out as before.
 */
export class ProcessBeacon {
  readonly id: string;
  readonly #dir: string;
  readonly #server: Server;

  private constructor(dir: string, id: string, server: Server) {
    this.#dir = dir;
    this.id = id;
    this.#server = server;
  }

  /**
   * Listens in `dir`. The socket files of ended processes are not swept here: they are the proof
   * a restart needs; forget() removes one once its lease is taken over.
   */
  static async open(dir: string): Promise<ProcessBeacon> {
    const id = randomBytes(12).toString('hex');
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(pathFor(dir, id), () => {
        server.off('error', reject);
        resolve();
      });
    });
    // The beacon never keeps the process alive by itself.
    server.unref();
    return new ProcessBeacon(dir, id, server);
  }

  /** True only when the process that opened beacon `id` in our directory has ended. */
  provesEnded(id: string): Promise<boolean> {
    return beaconEnded(this.#dir, id);
  }

  /** Removes the socket file of an ended beacon (after its lease was taken over). */
  async forget(id: string): Promise<void> {
    await unlink(pathFor(this.#dir, id)).catch(() => undefined);
  }

  /** Stops listening; the socket file goes with it. */
  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const ID = /^[0-9a-f]{24}$/;

/**
 * True only when the process that opened beacon `id` in `dir` has ended (for a reader that holds
 * no lease, and so no beacon of its own: `makerd demo` looking for another demo).
 */
export async function beaconEnded(dir: string, id: string): Promise<boolean> {
  return ID.test(id) && ended(pathFor(dir, id));
}

function pathFor(dir: string, id: string): string {
  return join(dir, `${PREFIX}${id}${SUFFIX}`);
}

function ended(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    // ECONNREFUSED: the file is there, its listener is gone. ENOENT and the rest prove nothing.
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}
