/**
 * Password hashing: argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes),
 * computed on libuv's thread pool so that a hash never blocks the event loop.
 */
import { hash, verify } from '@node-rs/argon2';

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export function verifyPassword(hashed: string, password: string): Promise<boolean> {
  return verify(hashed, password);
}
