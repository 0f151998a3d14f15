/**
 * Password hashing: argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes),
 * computed on libuv's thread pool so that a hash never blocks the event loop.
 *
 * Hashes also run one fewer at a time than there are cores (at least one): a hash is pure CPU,
 * and four of them at once on a two-core machine starved the reads a paywall is waiting for.
 * Creates queue a little longer instead.
 */
import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

const MAX_CONCURRENT_HASHES = Math.max(1, availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

/** Runs `work` when a slot is free; a finishing hash hands its slot straight to the next in line. */
async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_CONCURRENT_HASHES) running += 1;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}

export function hashPassword(password: string): Promise<string> {
  return limited(() => hash(password));
}

export function verifyPassword(hashed: string, password: string): Promise<boolean> {
  return limited(() => verify(hashed, password));
}
