/**
 * Request documents the API tests send, with unique emails so tests never collide.
 */
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import type { Scope } from '../../src/domain/api-key.js';
import type { AuditContext } from '../../src/domain/audit.js';
import type { SubscriptionValues } from '../../src/domain/subscription.js';
import type { UserCreate } from '../../src/domain/user.js';
import type { Client } from './service.js';

let counter = 0;

/** The audit context of changes a test makes through the store port directly. */
export const AUDIT: AuditContext = { actor: 'test', attributes: [] };

export function uniqueEmail(domain = 'example.com'): string {
  counter += 1;
  return `reader${counter}.${process.pid}@${domain}`;
}

/** A user with every attribute, nested objects, the JSON document and newsletters included. */
export function fullUserAttributes(email = uniqueEmail()) {
  return {
    email,
    password: 'correct horse battery',
    honorificPrefix: 'Dr.',
    givenName: 'Ada',
    additionalName: 'King',
    familyName: 'Lovelace',
    honorificSuffix: 'PhD',
    address: {
      streetAddress: '12 St James Square',
      unitNumber: '4B',
      addressLocality: 'London',
      addressRegion: 'Greater London',
      addressCountry: 'GB',
      postalCode: 'SW1Y 4JH',
    },
    circulationNumber: `C-${++counter}`,
    internalNotes: 'Prefers post. Ünïcödé and "quotes" survive.',
    jobTitle: 'Analyst',
    worksFor: { legalName: 'Analytical Engines Ltd', telephone: '+44 20 7946 0000' },
    telephone: '+44 20 7946 0001',
    cellNumber: '+44 7700 900001',
    faxNumber: '+44 20 7946 0002',
    demographics: { recommendations: ['science', 'history'] },
    newsletters: { add: ['daily', 'weekly'] },
  } satisfies UserCreate;
}

export function userDocument(attributes: Record<string, unknown> = {}) {
  return { data: { type: 'users', attributes: { email: uniqueEmail(), familyName: 'Reader', ...attributes } } };
}

/** A subscription's values as the store takes them: print, begun a day ago, open-ended, unless `values` say otherwise. */
export function subscriptionValues(values: Partial<SubscriptionValues> = {}): SubscriptionValues {
  return {
    dateStarted: Math.floor(Date.now() / 1000) - 24 * 3600,
    dateEnded: null,
    externalIdentifier: null,
    license: 'individual',
    resource: 'print',
    trial: false,
    productId: null,
    deliveryDays: null,
    ipRanges: [],
    emailDomains: [],
    seats: null,
    ...values,
  };
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
  relationships?: unknown,
): Promise<string> {
  const response = await client.post(`/users/${userId}/subscriptions`, subscriptionDocument(attributes, relationships));
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}

/** Subscribes the user to a product, whose resource it takes unless `attributes` name one; answers its id. */
export function subscribeToProduct(
  client: Client,
  userId: string,
  productId: string,
  attributes: Record<string, unknown> = {},
): Promise<string> {
  return createSubscription(
    client,
    userId,
    { resource: null, ...attributes },
    { product: { data: { type: 'products', id: productId } } },
  );
}

/**
 * Creates a product giving `resource` and a reader whose one subscription, open-ended and begun long
 * ago, names only that product (so takes its resource from it); answers both ids.
 */
export async function createProductSubscriber(
  client: Client,
  resource: string,
): Promise<{ product: string; userId: string }> {
  const product = `paper-${randomUUID()}`;
  const created = await client.post('/products', {
    data: { type: 'products', id: product, attributes: { name: 'Paper', resource } },
  });
  assert.equal(created.status, 201, created.text);
  const userId = await createUser(client);
  await subscribeToProduct(client, userId, product, { dateStarted: '2020-01-01T00:00:00+00:00', dateEnded: null });
  return { product, userId };
}

/** The single 422 error at `pointer`, asserting that it is the only one. */
export function onlyError(response: { status: number; body: any; text: string }, status: number) {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.errors.length, 1, response.text);
  return response.body.errors[0];
}

/** Issues a credential through the API (as `admin`) and answers its id and secret. */
export async function issueKey(
  admin: Client,
  scopes: Scope[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const response = await admin.post('/api-keys', {
    data: { type: 'api-keys', attributes: { name: `key ${scopes.join('+')}`, scopes, ...extra } },
  });
  assert.equal(response.status, 201, response.text);
  return { id: response.body.data.id, secret: response.body.meta.secret };
}

/** A webhook create document; the address is on loopback, where nothing listens unless a test does. */
export function webhookDocument(attributes: Record<string, unknown> = {}) {
  return {
    data: { type: 'webhooks', attributes: { url: 'http://127.0.0.1:9/hook', events: ['user.created'], ...attributes } },
  };
}

/** Registers a webhook (as `admin`) and answers its id. */
export async function createWebhook(admin: Client, attributes: Record<string, unknown> = {}): Promise<string> {
  const response = await admin.post('/webhooks', webhookDocument(attributes));
  assert.equal(response.status, 201, response.text);
  return response.body.data.id;
}
