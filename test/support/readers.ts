/**
 * Readers signing in, for the API tests: sign-in and password reset documents, and a reader with
 * a password to sign in as.
 */
import assert from 'node:assert/strict';
import { DEFAULT_READER_SETTINGS, type ReaderSettings } from '../../src/use-cases/readers/settings.js';
import { createUser, uniqueEmail } from './fixtures.js';
import type { Client, Response } from './service.js';

export function signInDocument(email: unknown, password: unknown) {
  return { data: { type: 'sign-ins', attributes: { email, password } } };
}

export function signIn(client: Client, email: unknown, password: unknown): Promise<Response> {
  return client.post('/sign-ins', signInDocument(email, password));
}

export function resetDocument(token: unknown, password: unknown) {
  return { data: { type: 'password-resets', attributes: { token, password } } };
}

/** Creates a reader with this password (through the API, as admin); answers their id and email. */
export async function createReader(
  admin: Client,
  password = 'a reader password',
  attributes: Record<string, unknown> = {},
): Promise<{ id: string; email: string; password: string }> {
  const email = uniqueEmail();
  const id = await createUser(admin, { email, password, ...attributes });
  return { id, email, password };
}

/** Issues a password reset token for the user (as admin); answers it. */
export async function issueResetToken(admin: Client, userId: string): Promise<string> {
  const response = await admin.post(`/users/${userId}/password-reset-tokens`, undefined);
  assert.equal(response.status, 201, response.text);
  return response.body.meta.token;
}

/** The one error of a failed sign-in, which must read the same whatever failed. */
export const INVALID_CREDENTIALS = {
  status: '422',
  code: 'INVALID_CREDENTIALS',
  title: 'Invalid credentials',
  detail: 'email or password is incorrect',
};

/** Reader settings for a test service: the defaults, but for what a test changes. */
export function readerSettings(
  changes: {
    maxAttempts?: number;
    windowSeconds?: number;
    resetTokenTtlSeconds?: number;
    failureFloorMs?: number;
  } = {},
): { readers: Partial<ReaderSettings> } {
  const { signIn, resetTokenTtlSeconds } = DEFAULT_READER_SETTINGS;
  return {
    readers: {
      signIn: {
        maxAttempts: changes.maxAttempts ?? signIn.maxAttempts,
        windowSeconds: changes.windowSeconds ?? signIn.windowSeconds,
      },
      resetTokenTtlSeconds: changes.resetTokenTtlSeconds ?? resetTokenTtlSeconds,
      ...(changes.failureFloorMs === undefined ? {} : { failureFloorMs: changes.failureFloorMs }),
    },
  };
}
