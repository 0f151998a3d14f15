/**
 * Password hashing: argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes),
 * computed on libuv's thread pool so that a hash never blocks the event loop.
 *
 * Hashes also run one fewer at a time than there are cores (at least one): a hash is pure CPU,
 * and four of them at once on a two-core machine starved the reads a paywall is waiting for.
 * Creates queue a little longer instead, but never past their deadline: a request that would
 * start its hash after it gives up, having written nothing (see HashDeadlineExceeded).
 */
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

export const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

/** A hash that could not start before its deadline: nothing was hashed, and nothing may be written. */
export class HashDeadlineExceeded extends Error {
  constructor() {
    super('too many passwords are being hashed to start this one before its deadline');
    this.name = 'HashDeadlineExceeded';
  }
}

/** Runs `work` when a slot is free, if one is before `deadline` (epoch ms); a finishing hash hands its slot straight to the next in line. */
async function limited<T>(work: () => Promise<T>, deadline: number): Promise<T> {
  if (running < MAX_CONCURRENT_HASHES) running += 1;
  else await slotBefore(deadline);
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

/** Waits for a slot to be handed over, or rejects when the deadline comes first. */
function slotBefore(deadline: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const handOver = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer =
      deadline === Infinity
        ? undefined
        : setTimeout(
            () => {
              waiting.splice(waiting.indexOf(handOver), 1);
              reject(new HashDeadlineExceeded());
            },
            Math.max(0, deadline - Date.now()),
          );
    waiting.push(handOver);
  });
}

/** The hash of a password; with a `deadline` (epoch ms), refused with HashDeadlineExceeded if it cannot start by then. */
export function hashPassword(password: string, deadline = Infinity): Promise<string> {
  return limited(() => hash(password), deadline);
}

export function verifyPassword(hashed: string, password: string): Promise<boolean> {
  return limited(() => verify(hashed, password), Infinity);
}
