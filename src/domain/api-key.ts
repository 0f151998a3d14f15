/**
 * API credentials. A secret is `circ_<key id>_<43 random characters>`: the id finds the
 * credential in one primary-key read, and only a SHA-256 of the random part is stored. A slow
 * password hash buys nothing for 256 random bits and would cost every request milliseconds.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from './schema.js';

export const API_KEYS = 'api-keys' as const;

export const SCOPES = ['read', 'write', 'admin', 'sign-in', 'metrics', 'catalogue', 'access', 'reset-tokens'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What each scope allows: read only reads; write also changes users and subscriptions; admin
 * everything. `sign-in` is the narrow one a website backend holds: it verifies readers' passwords
 * and resets them, and can read nothing (admin may do the same). Write may not: every CRM and
 * console agent would be a way to test a reader's password and to move their lastSignInAt; it
 * issues reset tokens, which only the reader's mailbox turns into a new password. `metrics` reads
 * /metrics and nothing else, for a Prometheus scraper (admin may too). `catalogue` reads and
 * changes products and newsletters and nothing else (admin may too), what a supervisor does
 * beyond an agent: it does not include `read`, which would open the readers' records to a
 * product tool; the catalogue's reads accept either of the two instead (routes/catalogue.ts).
 * `access` is a paywall's own: it asks the access checks (of a reader, of a network) and nothing
 * else, where `read` would also list every reader; those checks accept `read` too (routes/access.ts).
 * `reset-tokens` is a website backend's that mails readers their reset links itself: it is shown
 * the token of a reset it asks for, while the service cannot mail it (domain/password-reset.ts);
 * whoever sees a token can set the reader's password, so `write` (every agent) is never shown one.
 */
const GRANTS: Record<Scope, readonly Scope[]> = {
  read: ['read'],
  write: ['read', 'write'],
  admin: ['read', 'write', 'admin', 'sign-in', 'metrics', 'catalogue', 'access', 'reset-tokens'],
  'sign-in': ['sign-in'],
  metrics: ['metrics'],
  catalogue: ['catalogue'],
  access: ['access'],
  'reset-tokens': ['reset-tokens'],
};

export function allows(scopes: readonly Scope[], needed: Scope): boolean {
  return scopes.some((scope) => GRANTS[scope].includes(needed));
}

/** Whether the scopes allow any one of those a request accepts. */
export function allowsAny(scopes: readonly Scope[], accepted: readonly Scope[]): boolean {
  return accepted.some((needed) => allows(scopes, needed));
}

export const ApiKeyCreateAttributes = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', errorMessage: { pattern: "can't be blank" } }),
    scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, maxItems: SCOPES.length, uniqueItems: true }),
    rateLimit: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          description: 'Requests per second for this credential; null takes the service default.',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const ApiKeyAttributes = Type.Object({
  name: Type.String(),
  scopes: Type.Array(StringEnum(SCOPES)),
  rateLimit: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export type ApiKeyCreate = Static<typeof ApiKeyCreateAttributes>;

export interface ApiKey {
  id: string;
  name: string;
  scopes: Scope[];
  rateLimit: number | null;
  createdAt: number;
  revokedAt: number | null;
  /** Goes up by one with every change (a revocation): the resource's ETag. */
  version: number;
}

export interface StoredApiKey extends ApiKey {
  secretHash: Buffer;
}

const SECRET = /^circ_([1-9][0-9]{0,14})_([A-Za-z0-9_-]{43})$/;

/** A fresh random part of a secret, and the hash to store of it. */
export function newSecret(): { random: string; hash: Buffer } {
  const random = randomBytes(32).toString('base64url');
  return { random, hash: hashSecret(random) };
}

export function formatSecret(id: string, random: string): string {
  return `circ_${id}_${random}`;
}

/** The key id and random part of a presented secret, or undefined when it has not the form. */
export function parseSecret(secret: string): { id: string; random: string } | undefined {
  const m = SECRET.exec(secret);
  return m ? { id: m[1] as string, random: m[2] as string } : undefined;
}

export function hashSecret(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares in constant time, so the answer's timing tells nothing of how much matched. */
export function secretMatches(storedHash: Buffer, presented: string): boolean {
  const presentedHash = hashSecret(presented);
  return storedHash.length === presentedHash.length && timingSafeEqual(storedHash, presentedHash);
}
