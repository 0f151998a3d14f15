/**
 * What every hostile-input suite shares: a service with one seeded user and subscription, and
 * the assertions of the suites. Whatever a client sends, the answer is a 4xx JSON:API error
 * (never a 5xx), the process keeps serving, and a refused request leaves the store exactly as it
 * was: the store is compared row for row, through a second connection to the service's
 * database, before and after every refused write.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, userDocument } from '../../support/fixtures.js';
import { startService, TEST_ADMIN_KEY, type Response, type Service } from '../../support/service.js';
import type { StoreKind } from '../../support/stores.js';

export const BEARER = `Bearer ${TEST_ADMIN_KEY}`;

export interface Hostile {
  readonly service: Service;
  readonly userId: string;
  readonly subscriptionId: string;
  /**
   * Sends a request that must be refused: asserts the status (exact, or any 4xx), a JSON:API
   * error document, and a store unchanged by the request. Answers the errors.
   */
  refused(status: number | '4xx', send: () => Promise<Response>): Promise<any[]>;
  /** Asserts a 422 whose every error points at `pointer`. */
  assertAllAt(errors: any[], pointer: string): void;
  assertStillServing(): Promise<void>;
  isPolluted(): boolean;
  postUser(body: unknown): () => Promise<Response>;
  putUser(attributes: unknown): () => Promise<Response>;
  postSubscription(body: unknown): () => Promise<Response>;
  putSubscription(attributes: unknown, relationships?: unknown): () => Promise<Response>;
  /** A valid user document as text with `"HOLE"` replaced by raw JSON text. */
  userDocumentWith(placeholderPath: 'attribute' | 'top' | 'data' | 'meta', raw: string): string;
}

/** Starts the service (before the suite's tests) and stops it after; answers the shared helpers. */
export function hostileInput(kind: StoreKind): Hostile {
  let service: Service;
  let userId: string;
  let subscriptionId: string;

  before(async () => {
    service = await startService(kind);
    userId = await createUser(service.client, {
      givenName: 'Seeded',
      circulationNumber: 'C-1',
      address: { postalCode: '12345', addressCountry: 'GB' },
      newsletters: { add: ['daily'] },
    });
    subscriptionId = await createSubscription(service.client, userId, {
      dateStarted: '2025-01-01T00:00:00+00:00',
      dateEnded: '2026-01-01T00:00:00+00:00',
    });
  });
  after(() => service.close());

  const hostile: Hostile = {
    get service() {
      return service;
    },
    get userId() {
      return userId;
    },
    get subscriptionId() {
      return subscriptionId;
    },
    async refused(status, send) {
      const state = await service.snapshot();
      const response = await send();
      if (status === '4xx') {
        assert.ok(
          response.status >= 400 && response.status < 500,
          `expected a 4xx, got ${response.status}: ${response.text}`,
        );
      } else {
        assert.equal(response.status, status, response.text);
      }
      assert.ok(Array.isArray(response.body?.errors) && response.body.errors.length > 0, response.text);
      for (const error of response.body.errors) assert.equal(error.status, String(response.status), response.text);
      assert.equal(await service.snapshot(), state, 'a refused request changed the store');
      return response.body.errors;
    },
    assertAllAt(errors, pointer) {
      for (const error of errors) assert.equal(error.source?.pointer, pointer, JSON.stringify(errors));
    },
    async assertStillServing() {
      const response = await service.client.get(`/users/${userId}`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.data.id, userId);
    },
    isPolluted() {
      return (
        ['polluted', 'isAdmin'].some((key) => Object.prototype.hasOwnProperty.call(Object.prototype, key)) ||
        ({} as Record<string, unknown>).polluted !== undefined
      );
    },
    postUser: (body) => () => service.client.post('/users', body),
    putUser: (attributes) => () =>
      service.client.put(`/users/${userId}`, { data: { type: 'users', id: userId, attributes } }),
    postSubscription: (body) => () => service.client.post(`/users/${userId}/subscriptions`, body),
    putSubscription: (attributes, relationships) => () =>
      service.client.put(`/users/${userId}/subscriptions/${subscriptionId}`, {
        data: {
          type: 'subscriptions',
          id: subscriptionId,
          attributes,
          ...(relationships === undefined ? {} : { relationships }),
        },
      }),
    userDocumentWith(placeholderPath, raw) {
      const base = userDocument().data.attributes;
      switch (placeholderPath) {
        case 'attribute':
          return JSON.stringify({ data: { type: 'users', attributes: { ...base, demographics: 'HOLE' } } }).replace(
            '"HOLE"',
            raw,
          );
        case 'top':
          return `{${raw},"data":${JSON.stringify({ type: 'users', attributes: base })}}`;
        case 'data':
          return `{"data":{${raw},"type":"users","attributes":${JSON.stringify(base)}}}`;
        case 'meta':
          return JSON.stringify({ data: { type: 'users', attributes: base }, meta: 'HOLE' }).replace('"HOLE"', raw);
      }
    },
  };
  return hostile;
}

/** After a suite's hostile input: the service still serves reads and writes. */
export function keepsServing(hostile: Hostile): void {
  describe('after all of the hostile input above', () => {
    it('still serves reads and writes', async () => {
      await hostile.assertStillServing();
      const id = await createUser(hostile.service.client, { givenName: 'After' });
      const read = await hostile.service.client.get(`/users/${id}`);
      assert.equal(read.body.data.attributes.givenName, 'After');
    });
  });
}
