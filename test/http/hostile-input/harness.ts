/**
 * What every block of the hostile-input suite shares: a service with one seeded user and
 * subscription, and the suite's assertions. Whatever a client sends, the answer is a 4xx JSON:API
 * error (never a 5xx), the process keeps serving, and a refused request leaves the store exactly as
 * it was: the store is compared row for row, through a second connection to the service's
 * database, before and after every refused write.
 *
 * When the service is a process of its own (a pid), its resident memory is sampled and its event
 * loop timed on every refused request: none may raise the memory by more than 20 MB or block the
 * loop for more than 50 ms.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, userDocument } from '../../support/fixtures.js';
import { loopBlockedMs, ResidentMemory } from '../../support/footprint.js';
import { TEST_ADMIN_KEY, type Response, type Service } from '../../support/service.js';
import type { StoreKind } from '../../support/stores.js';

export const BEARER = `Bearer ${TEST_ADMIN_KEY}`;

/** The most a request may raise the service's resident memory, and block its event loop. */
const MEMORY_BUDGET_MB = 20;
const LOOP_BUDGET_MS = 50;

/** The service the suite runs against; with a pid, a process of its own, whose footprint is watched. */
export type HostileTarget = Pick<Service, 'client' | 'baseUrl' | 'sql' | 'snapshot' | 'close'> & { pid?: number };

export interface HostileOptions {
  /** Whether to watch the service's memory and event loop (it must be a process of its own). */
  footprint: boolean;
}

export interface Hostile {
  readonly service: HostileTarget;
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
  /** Defines the checks that end a run: still serving and, when watched, within the budgets. */
  afterwards(): void;
}

/**
 * Starts the service `start` gives (before the suite's tests) and stops it after; answers the
 * shared helpers.
 */
export function hostileInput(
  kind: StoreKind,
  start: (kind: StoreKind) => Promise<HostileTarget>,
  options: HostileOptions,
): Hostile {
  let service: HostileTarget;
  let userId: string;
  let subscriptionId: string;
  let memory: ResidentMemory | undefined;
  /** The longest any refused request blocked the service's event loop, and which. */
  let worstBlock = { ms: 0, request: '' };
  /** The most any refused request raised the service's resident memory, and which. */
  let worstRise = { mb: 0, request: '' };

  before(async () => {
    service = await start(kind);
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
    if (options.footprint) {
      assert.ok(service.pid !== undefined, 'the service has no process of its own to watch');
      // Ordinary traffic first, so that the heap has grown to its working size before the baseline.
      for (let i = 0; i < 100; i += 1) {
        await createUser(service.client, { newsletters: { add: ['daily'] } });
        await service.client.get('/users?page[size]=100');
      }
      memory = new ResidentMemory(service.pid);
    }
  });
  after(async () => {
    memory?.stop();
    await service.close();
  });

  /**
   * Sends a refused request and, when the service runs in a process of its own, measures how far
   * it raised the service's resident memory and how long it blocked its event loop. A refused
   * request changes nothing, so one that seems over a budget is sent again: a stall or a late
   * collection that the machine's load caused does not repeat, a cost the request causes does.
   */
  async function timed(send: () => Promise<Response>): Promise<Response> {
    if (!memory) return send();
    const watched = memory;
    const measure = async () => {
      await loopBlockedMs(service.client);
      watched.rebase();
      const answer = await send();
      return { answer, blocked: await loopBlockedMs(service.client), rise: watched.riseMb() };
    };
    const first = await measure();
    let { blocked, rise } = first;
    for (let attempt = 1; attempt < 5 && (blocked > LOOP_BUDGET_MS || rise > MEMORY_BUDGET_MB); attempt += 1) {
      const again = await measure();
      blocked = Math.min(blocked, again.blocked);
      rise = Math.min(rise, again.rise);
    }
    const request = first.answer.text.slice(0, 200);
    if (blocked > worstBlock.ms) worstBlock = { ms: blocked, request };
    if (rise > worstRise.mb) worstRise = { mb: rise, request };
    return first.answer;
  }

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
      const response = await timed(send);
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
    afterwards() {
      describe('after all of the hostile input above', () => {
        it('still serves reads and writes', async () => {
          await hostile.assertStillServing();
          const id = await createUser(service.client, { givenName: 'After' });
          const read = await service.client.get(`/users/${id}`);
          assert.equal(read.body.data.attributes.givenName, 'After');
        });

        if (!options.footprint) return;
        it(`no refused request raised the service's resident memory by over ${MEMORY_BUDGET_MB} MB or blocked its loop over ${LOOP_BUDGET_MS} ms`, (t) => {
          assert.ok(memory, 'the service has no process of its own to watch');
          t.diagnostic(`the largest rise ${worstRise.mb.toFixed(1)} MB: ${worstRise.request}`);
          t.diagnostic(`the longest block ${worstBlock.ms.toFixed(1)} ms: ${worstBlock.request}`);
          assert.ok(
            worstRise.mb <= MEMORY_BUDGET_MB,
            `a request raised the resident memory by ${worstRise.mb.toFixed(1)} MB: ${worstRise.request}`,
          );
          assert.ok(
            worstBlock.ms <= LOOP_BUDGET_MS,
            `a request blocked the loop for ${worstBlock.ms.toFixed(0)} ms: ${worstBlock.request}`,
          );
        });
      });
    },
  };

  return hostile;
}
