/**
 * Webhook delivery, end to end: changes made through the API reach a real endpoint on 127.0.0.1,
 * signed per Standard Webhooks (verified by the reference library), retried with growing waits,
 * in order per user, exactly once per event id while the endpoint answers, and by one dispatcher
 * at a time when several share the database.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/domain/events.js';
import type { RetryPolicy } from '../../src/domain/webhooks.js';
import { openPostgresStore } from '../../src/store/postgres/open.js';
import type { Store } from '../../src/store/port.js';
import { openSqliteStore } from '../../src/store/sqlite/open.js';
import { startDispatcher, type Dispatcher, type DispatcherOptions } from '../../src/webhooks/dispatcher.js';
import { createSubscription, createUser } from '../support/fixtures.js';
import { createReader, signIn } from '../support/readers.js';
import {
  startService,
  TEST_ALLOWED_NETWORKS,
  TEST_WEBHOOK_KEY,
  type Client,
  type Service,
} from '../support/service.js';
import { eventually } from '../support/eventually.js';
import { forEachStore } from '../support/stores.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const ALL_EVENTS = [...EVENT_TYPES];
const RETRY: RetryPolicy = { baseMs: 200, maxMs: 2000, maxAttempts: 3 };
const TIMEOUT_MS = 500;
const quiet = { warn() {}, error() {}, debug() {} };

function dispatch(store: Store, options: Partial<DispatcherOptions> = {}): Dispatcher {
  return startDispatcher(store, {
    key: TEST_WEBHOOK_KEY,
    allowedNetworks: TEST_ALLOWED_NETWORKS,
    timeoutMs: TIMEOUT_MS,
    concurrency: 4,
    pollMs: 20,
    retry: RETRY,
    log: quiet,
    ...options,
  });
}

forEachStore((kind) => {
  let service: Service;
  let dispatcher: Dispatcher;
  let receiver: WebhookReceiver;
  let webhookId: string;

  before(async () => {
    service = await startService(kind, { webhooks: { changed: () => dispatcher.wake() } });
    dispatcher = dispatch(service.store);
  });
  after(async () => {
    await dispatcher.stop();
    await service.close();
  });
  afterEach(async () => {
    // Each test has its endpoint; the next test's changes must not go to this one.
    await service.client.delete(`/webhooks/${webhookId}`);
    await receiver.close();
  });

  /** A receiver and a webhook to it for `events`; answers the signing secret. */
  async function listen(events = ALL_EVENTS): Promise<string> {
    receiver = await WebhookReceiver.start();
    const response = await service.client.post('/webhooks', {
      data: { type: 'webhooks', attributes: { url: receiver.url, events } },
    });
    assert.equal(response.status, 201, response.text);
    webhookId = response.body.data.id;
    receiver.secret = response.body.meta.secret;
    return receiver.secret;
  }

  /** The user's events as the feed shows them, less who made each (the feed's actor, which names staff, stays in). */
  const eventsOf = async (userId: string) =>
    ((await service.client.get(`/events?filter[user]=${userId}`)).body.data as { id: string; attributes: any }[]).map(
      ({ attributes: { actor: _actor, ...attributes }, ...event }) => ({ ...event, attributes }),
    );

  const deliveryOf = async (eventId: string) =>
    ((await service.client.get(`/webhooks/${webhookId}/deliveries`)).body.data as any[]).find(
      (d) => d.attributes.eventId === eventId,
    );

  /** The delivery of an event once `done` holds of its attributes (the endpoint answers before it is recorded). */
  async function deliveryWhen(eventId: string, done: (attributes: any) => boolean, what: string) {
    let last: any;
    return eventually(
      async () => {
        last = await deliveryOf(eventId);
        return done(last.attributes) && last;
      },
      () => `${what}: ${JSON.stringify(last)}`,
    );
  }

  describe('webhook delivery', () => {
    it('POSTs each event, signed per Standard Webhooks, with the event as the feed shows it', async () => {
      await listen();
      const userId = await createUser(service.client, { password: 'never in a webhook' });
      const subscriptionId = await createSubscription(service.client, userId);
      await service.client.put(`/users/${userId}/subscriptions/${subscriptionId}/expire`);
      await service.client.delete(`/users/${userId}`);
      const events = await eventsOf(userId);
      assert.equal(events.length, 4);
      await receiver.until(() => receiver.delivered().length === 4, 'four deliveries');

      assert.deepEqual(
        receiver.delivered().map((a) => a.body),
        events.map((event) => ({
          type: event.attributes.eventType,
          timestamp: event.attributes.occurredAt,
          data: event,
        })),
      );
      for (const attempt of receiver.delivered()) {
        assert.ok(attempt.verified);
        assert.equal(attempt.headers['webhook-id'], attempt.body.data.id);
        assert.equal(attempt.headers['content-type'], 'application/json');
        assert.ok(Math.abs(Number(attempt.headers['webhook-timestamp']) - attempt.at / 1000) < 5);
        assert.equal(attempt.path, '/hooks/circulation');
      }
      assert.ok(!JSON.stringify(receiver.attempts.map((a) => a.body)).includes('never in a webhook'));
    });

    it('delivers user.signed_in with the event alone: no password, hash or address', async () => {
      await listen(['user.signed_in']);
      const reader = await createReader(service.client, 'never in a sign-in webhook');
      assert.equal((await signIn(service.client, reader.email, reader.password)).status, 201);
      const [event] = (await eventsOf(reader.id)).filter((e) => e.attributes.eventType === 'user.signed_in');
      await receiver.until(() => receiver.delivered().length === 1, 'the sign-in delivery');
      const [attempt] = receiver.delivered();
      assert.deepEqual(attempt?.body, { type: 'user.signed_in', timestamp: event?.attributes.occurredAt, data: event });
      const text = JSON.stringify(attempt?.body) + JSON.stringify(attempt?.headers);
      for (const secret of ['never in a sign-in webhook', '$argon2', 'password', '127.0.0.1:']) {
        assert.ok(!JSON.stringify(attempt?.body).includes(secret), secret);
      }
      assert.ok(!text.includes('never in a sign-in webhook'));
    });

    it('delivers newsletter_consent.changed with the old and new state and the source, as the feed shows it', async () => {
      await listen(['newsletter_consent.changed']);
      const userId = await createUser(service.client, { newsletters: { add: ['consent-hook'] } });
      const bounced = await service.client.patch(`/users/${userId}/newsletter-consents/consent-hook`, {
        data: { type: 'newsletter-consents', id: 'consent-hook', attributes: { state: 'bounced' } },
      });
      assert.equal(bounced.status, 200, bounced.text);
      const events = (await eventsOf(userId)).filter((e) => e.attributes.eventType === 'newsletter_consent.changed');
      await receiver.until(() => receiver.delivered().length === 2, 'two consent deliveries');
      assert.deepEqual(
        receiver.delivered().map((a) => a.body),
        events.map((event) => ({
          type: 'newsletter_consent.changed',
          timestamp: event.attributes.occurredAt,
          data: event,
        })),
      );
      assert.deepEqual(
        receiver.delivered().map((a) => a.body.data.attributes.consent),
        [
          { oldState: null, newState: 'subscribed', source: 'api' },
          { oldState: 'subscribed', newState: 'bounced', source: 'email-provider' },
        ],
      );
    });

    it('delivers the events of a product, which have no user, signed, in order, listed with a null user', async () => {
      const secret = await listen(['product.created', 'product.updated', 'product.deleted']);
      const id = `webhooked-${process.pid}`;
      await service.client.post('/products', { data: { type: 'products', id, attributes: { name: 'Hooked' } } });
      await service.client.patch(`/products/${id}`, { data: { type: 'products', id, attributes: { active: false } } });
      await service.client.delete(`/products/${id}`);
      await receiver.until(() => receiver.delivered().length === 3, 'three deliveries');
      assert.deepEqual(
        receiver
          .delivered()
          .map((a) => [a.body.type, a.body.data.attributes.resourceType, a.body.data.attributes.resourceId]),
        [
          ['product.created', 'products', id],
          ['product.updated', 'products', id],
          ['product.deleted', 'products', id],
        ],
      );
      for (const attempt of receiver.delivered()) {
        assert.equal(attempt.body.data.attributes.userId, null);
        assert.doesNotThrow(() =>
          new Webhook(secret).verify(JSON.stringify(attempt.body), attempt.headers as Record<string, string>),
        );
      }
      // The endpoint answers before the outcome is recorded: wait for the record.
      const deliveries = await eventually(
        async () => {
          const data = (await service.client.get(`/webhooks/${webhookId}/deliveries`)).body.data as any[];
          return data.every((d) => d.attributes.state === 'delivered') && data;
        },
        () => 'every delivery recorded as delivered',
      );
      assert.deepEqual(
        deliveries.map((d: any) => [d.attributes.eventType, d.attributes.userId]),
        [
          ['product.created', null],
          ['product.updated', null],
          ['product.deleted', null],
        ],
      );
    });

    it('signs so that a changed body or another secret fails verification', async () => {
      const secret = await listen(['user.created']);
      await createUser(service.client);
      await receiver.until(() => receiver.delivered().length === 1, 'a delivery');
      const [attempt] = receiver.delivered();
      const body = JSON.stringify(attempt!.body);
      const headers = attempt!.headers as Record<string, string>;
      assert.doesNotThrow(() => new Webhook(secret).verify(body, headers));
      assert.throws(() => new Webhook(secret).verify(body.replace('user.created', 'user.deleted'), headers));
      const otherSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      assert.throws(() => new Webhook(otherSecret).verify(body, headers));
    });

    it('retries a failing endpoint with doubling waits until it answers 2xx', async () => {
      await listen(['user.created']);
      receiver.answer = (attempt) => (attempt.n < 3 ? 503 : 200);
      const userId = await createUser(service.client);
      const [event] = await eventsOf(userId);
      await receiver.until(() => receiver.delivered().length === 1, 'the third attempt');
      const times = receiver.attempts.map((a) => a.at);
      assert.equal(times.length, 3);
      // Equal jitter: the wait after the k-th failure is between half and all of base × 2^(k-1).
      const [first, second, third] = times as [number, number, number];
      assert.ok(second - first >= RETRY.baseMs / 2 - 5, `first wait ${second - first} ms`);
      assert.ok(third - second >= RETRY.baseMs - 5, `second wait ${third - second} ms`);
      assert.ok(third - first < 5000, 'the retries took far longer than the policy allows');
      const delivery = (await deliveryWhen(event!.id, (d) => d.state === 'delivered', 'delivered')).attributes;
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.lastStatus, 200);
      assert.match(delivery.deliveredAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
    });

    it('counts no answer within the timeout as a failed attempt, and says so', async () => {
      await listen(['user.created']);
      let hold = true;
      receiver.answer = () => (hold ? 'hang' : 204);
      const userId = await createUser(service.client);
      const [event] = await eventsOf(userId);
      const timedOut = await deliveryWhen(event!.id, (d) => d.lastError !== null, 'the timed-out attempt');
      assert.equal(timedOut.attributes.lastError, `no answer within ${TIMEOUT_MS} ms`);
      assert.equal(timedOut.attributes.state, 'pending');
      hold = false;
      await receiver.until(() => receiver.delivered().length === 1, 'a delivery after the timeout');
      await deliveryWhen(event!.id, (d) => d.state === 'delivered' && d.attempts >= 2, 'delivered');
    });

    it("holds a user's later events behind a failing one, not other users'; gives up after the last attempt", async () => {
      await listen(['user.created', 'user.updated']);
      let failingCreation: string | undefined;
      receiver.answer = (attempt) => {
        failingCreation ??= attempt.id;
        return attempt.id === failingCreation ? 500 : 204;
      };
      const failing = await createUser(service.client);
      const [created] = await eventsOf(failing);
      await service.client.patch(`/users/${failing}`, {
        data: { type: 'users', id: failing, attributes: { givenName: 'Later' } },
      });
      const other = await createUser(service.client);
      const [otherCreated] = await eventsOf(other);
      const [, updated] = await eventsOf(failing);

      await receiver.until(() => receiver.delivered().some((a) => a.id === updated!.id), "the user's later event");
      const order = receiver.attempts.map((a) => a.id);
      assert.equal(order.filter((id) => id === created!.id).length, RETRY.maxAttempts);
      assert.ok(order.indexOf(otherCreated!.id) < order.lastIndexOf(created!.id), 'another user waited');
      assert.ok(order.indexOf(updated!.id) > order.lastIndexOf(created!.id), 'a later event overtook');
      assert.equal(failingCreation, created!.id);
      const failed = (await deliveryWhen(created!.id, (d) => d.state !== 'pending', 'the last attempt')).attributes;
      assert.deepEqual([failed.state, failed.attempts, failed.lastStatus], ['failed', RETRY.maxAttempts, 500]);
      assert.equal(failed.lastError, 'the endpoint answered 500');
      assert.equal(failed.nextAttemptAt, null);
    });

    it('sends a failed delivery again on redeliver', async () => {
      await listen(['user.created']);
      let up = false;
      receiver.answer = () => (up ? 204 : 500);
      const userId = await createUser(service.client);
      const [event] = await eventsOf(userId);
      await receiver.until(() => receiver.attempts.length === RETRY.maxAttempts, 'every attempt');
      const delivery = await deliveryWhen(event!.id, (d) => d.state === 'failed', 'the delivery to fail');
      up = true;
      const redelivered = await service.client.post(`${new URL(delivery.links.self).pathname}/redeliver`, undefined);
      assert.equal(redelivered.status, 200, redelivered.text);
      assert.deepEqual(
        [redelivered.body.data.attributes.state, redelivered.body.data.attributes.attempts],
        ['pending', 0],
      );
      await receiver.until(() => receiver.delivered().length === 1, 'the redelivery');
      assert.equal(receiver.delivered()[0]!.id, event!.id);
    });

    it('delivers every change of a concurrent workload exactly once per event id, in order per user', async (t) => {
      // Exactly once where no attempt times out: an attempt given up on may still have been received
      // (at least once), and a loaded machine answered past the tests' half second.
      await dispatcher.stop();
      dispatcher = dispatch(service.store, { timeoutMs: 30_000 });
      t.after(async () => {
        await dispatcher.stop();
        dispatcher = dispatch(service.store);
      });
      await listen();
      // Some first attempts fail, so that retries mix with first deliveries.
      receiver.answer = (attempt) => (attempt.n === 1 && Number(attempt.id) % 4 === 0 ? 500 : 204);
      const users = await Promise.all(Array.from({ length: 12 }, () => workload(service.client)));
      const expected = (await Promise.all(users.map(eventsOf))).flat().map((e) => e.id);
      assert.equal(expected.length, 12 * 6);
      await receiver.until(() => receiver.delivered().length >= expected.length, 'every event', 30_000);
      const delivered = receiver.delivered();
      assert.deepEqual(delivered.map((a) => a.id).sort(), [...expected].sort(), 'each event once');
      assert.ok(receiver.attempts.every((a) => a.verified));
      for (const userId of users) {
        const ids = delivered.filter((a) => a.body.data.attributes.userId === userId).map((a) => Number(a.id));
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
          `user ${userId}'s events out of order`,
        );
      }
    });

    it('hands an attempt in flight back at once when its dispatcher stops, for the next one to make', async () => {
      await listen(['user.created']);
      let hold = true;
      receiver.answer = () => (hold ? 'hang' : 204);
      await dispatcher.stop();
      // A long timeout: stopping must not wait it out.
      const patient = dispatch(service.store, { timeoutMs: 60_000, concurrency: 1 });
      const userId = await createUser(service.client);
      const [event] = await eventsOf(userId);
      await receiver.until(() => receiver.attempts.length === 1, 'the first attempt');
      const stopping = Date.now();
      await patient.stop();
      assert.ok(Date.now() - stopping < 2000, `stopping took ${Date.now() - stopping} ms`);
      const handedBack = (await deliveryOf(event!.id)).attributes;
      assert.equal(handedBack.state, 'pending');
      assert.equal(handedBack.lastError, 'the delivering process stopped during the attempt');
      hold = false;
      dispatcher = dispatch(service.store);
      await receiver.until(() => receiver.delivered().length === 1, 'the delivery by the next dispatcher');
      assert.equal(receiver.delivered()[0]!.id, event!.id);
    });

    it('hands each delivery to one of several dispatchers sharing the database', async () => {
      await listen(['user.created', 'user.updated']);
      const second = await openSecondStore(service);
      const delivered = [0, 0];
      const counting = (i: number) => ({ ...quiet, debug: () => (delivered[i] = (delivered[i] ?? 0) + 1) });
      // The file's own dispatcher is replaced by two that count what they deliver.
      await dispatcher.stop();
      // A lease far longer than any attempt, however loaded the machine: what is tested is that a
      // claim hands each delivery to one dispatcher, not how long a lease lasts.
      const patient = { timeoutMs: 30_000 };
      const pair = [
        dispatch(service.store, { ...patient, log: counting(0) }),
        dispatch(second, { ...patient, log: counting(1) }),
      ];
      dispatcher = { wake: () => pair.forEach((d) => d.wake()), stop: async () => {} };
      try {
        const users = await Promise.all(
          Array.from({ length: 20 }, async () => {
            const userId = await createUser(service.client);
            await service.client.patch(`/users/${userId}`, {
              data: { type: 'users', id: userId, attributes: { givenName: 'Twice' } },
            });
            return userId;
          }),
        );
        const expected = (await Promise.all(users.map(eventsOf))).flat().map((e) => e.id);
        await receiver.until(() => receiver.attempts.length >= expected.length, 'every event', 30_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.deepEqual(receiver.attempts.map((a) => a.id).sort(), [...expected].sort(), 'an event sent twice');
        assert.equal(delivered[0]! + delivered[1]!, expected.length);
      } finally {
        await Promise.all(pair.map((d) => d.stop()));
        await second.close();
        dispatcher = dispatch(service.store);
      }
    });
  });

  /** A user and the changes a day of fulfilment makes to them: six events. */
  async function workload(client: Client): Promise<string> {
    const userId = await createUser(client);
    const first = await createSubscription(client, userId);
    const second = await createSubscription(client, userId);
    await client.put(`/users/${userId}`, { data: { type: 'users', id: userId, attributes: { givenName: 'Changed' } } });
    await client.put(`/users/${userId}/subscriptions/${first}/expire`);
    await client.delete(`/users/${userId}/subscriptions/${second}`);
    return userId;
  }
});

/** Another connection to the service's database, as a second process would have. */
async function openSecondStore(service: Service): Promise<Store> {
  const url = service.databaseUrl;
  return url.startsWith('sqlite:')
    ? openSqliteStore({ path: url.slice('sqlite:'.length) })
    : openPostgresStore({ url });
}
