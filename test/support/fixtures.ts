/**
 * Request documents the API tests send, with unique emails so tests never collide.
 */
import assert from 'node:assert/strict';
import type { Client } from './service.js';

let counter = 0;

export function uniqueEmail(domain = 'example.com'): string {
  counter += 1;
  return `reader${counter}.${process.pid}@${domain}`;
}

export function userDocument(attributes: Record<string, unknown> = {}) {
  return { data: { type: 'users', attributes: { email: uniqueEmail(), familyName: 'Reader', ...attributes } } };
}

export function subscriptionDocument(attributes: Record<string, unknown> = {}, relationships?: unknown) {
  return {
    data: {
      type: 'subscriptions',
      attributes: {
        dateStarted: '2025-01-01T00:00:00+00:00',
        dateEnded: '2026-01-01T00:00:00+00:00',
        license: 'individual',
        resource: 'online',
        trial: false,
        ...attributes,
      },
      ...(relationships === undefined ? {} : { relationships }),
    },
  };
}

/** Creates a user and answers its id. */
export async function createUser(client: Client, attributes: Record<string, unknown> = {}): Promise<string> {
  const response = await client.post('/users', userDocument(attributes));
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

/** Creates a subscription of the user and answers its id. */
export async function createSubscription(
  client: Client,
  userId: string,
  attributes: Record<string, unknown> = {},
): Promise<string> {
  const response = await client.post(`/users/${userId}/subscriptions`, subscriptionDocument(attributes));
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

/** The single 422 error at `pointer`, asserting that it is the only one. */
export function onlyError(response: { status: number; body: any; text: string }, status: number) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.errors.length, 1, response.text);
  return response.body.errors[0];
}
