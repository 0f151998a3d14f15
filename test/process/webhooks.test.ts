/**
 * Webhook delivery in a real process: killed with SIGKILL while an endpoint holds a delivery, the
 * service loses no event; after a restart the held delivery is made again, under the same
 * webhook-id and signed with the same secret. Two processes deliver each event once between
 * them. Also on Citus, where the outbox and its claims stay on the coordinator.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUser, userDocument, webhookDocument } from '../support/fixtures.js';
import { startProcess } from '../support/process.js';
import { eventually } from '../support/eventually.js';
import { postgresSkipReason } from '../support/postgres.js';
import { forEachStoreAndCitus } from '../support/citus.js';
import { openTestStore, type TestStore } from '../support/stores.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

forEachStoreAndCitus((kind) => {
  let store: TestStore;
  let receiver: WebhookReceiver;
  before(async () => {
    store = await openTestStore(kind);
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver.close();
    await store.close();
  });

  describe('a crash (SIGKILL) in the middle of a webhook delivery', () => {
    it('loses no event: the held delivery is made again after a restart, with the same id', async () => {
      const env = {
        DATABASE_URL: store.databaseUrl,
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_RETRY_BASE_MS: '100',
        // SQLite keeps its key in a file beside the database, which the restart must find again.
        ...(kind !== 'SQLite' ? { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') } : {}),
      };
      const service = await startProcess(env);
      let held: string | undefined;
      receiver.answer = (attempt) => {
        held ??= attempt.id;
        return attempt.id === held ? 'hang' : 204;
      };
      const created = await service.client.post('/webhooks', webhookDocument({ url: receiver.url }));
      assert.equal(created.status, 201, created.text);
      receiver.secret = created.body.meta.secret;
      const users = [];
      for (let i = 0; i < 5; i += 1) users.push(await createUser(service.client));
      await receiver.until(() => held !== undefined, 'the first delivery');
      assert.equal(await service.kill('SIGKILL'), 'SIGKILL');

      receiver.answer = () => 204;
      const restarted = await startProcess(env);
      try {
        const events = (await restarted.client.get('/events?filter[type]=user.created')).body.data as { id: string }[];
        assert.equal(events.length, 5);
        await receiver.until(
          () => events.every((event) => receiver.delivered().some((a) => a.id === event.id)),
          'every event after the restart',
        );
        const attemptsAtHeld = receiver.attempts.filter((a) => a.id === held);
        assert.ok(attemptsAtHeld.length >= 2, 'the held delivery was not made again');
        assert.ok(
          receiver.attempts.every((a) => a.verified),
          'a signature did not verify after the restart',
        );
        if (kind === 'SQLite') {
          const keyFile = join(dirname(store.databaseUrl.slice('sqlite:'.length)), 'webhook-secret.key');
          assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'the key file is readable by others');
        }
        const webhookId = created.body.data.id;
        let deliveries: any[] = [];
        await eventually(
          async () => {
            deliveries = (await restarted.client.get(`/webhooks/${webhookId}/deliveries`)).body.data;
            return deliveries.every((d) => d.attributes.state === 'delivered');
          },
          () => `every delivery to be delivered: ${JSON.stringify(deliveries)}`,
        );
      } finally {
        await restarted.stop();
      }
    });
  });

  describe('two service processes on one database', () => {
    it('deliver each event of a concurrent workload once, between them', async () => {
      const env = {
        DATABASE_URL: store.databaseUrl,
        WEBHOOK_POLL_MS: '20',
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      };
      const [one, two] = [await startProcess(env), await startProcess(env)];
      // An endpoint of its own: the webhook of the test before still goes to the other one.
      const receiver = await WebhookReceiver.start();
      try {
        const created = await one.client.post('/webhooks', webhookDocument({ url: receiver.url }));
        receiver.secret = created.body.meta.secret;
        const users = await Promise.all(
          Array.from({ length: 30 }, (_, i) => createUser((i % 2 === 0 ? one : two).client)),
        );
        const events = (await one.client.get('/events?filter[type]=user.created&page[size]=100')).body.data as {
          id: string;
          attributes: { userId: string };
        }[];
        const expected = events.filter((e) => users.includes(e.attributes.userId)).map((e) => e.id);
        assert.equal(expected.length, 30);
        await receiver.until(() => receiver.attempts.length >= expected.length, 'every event');
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.deepEqual(receiver.attempts.map((a) => a.id).sort(), [...expected].sort(), 'an event sent twice');
        assert.ok(receiver.attempts.every((a) => a.verified));
      } finally {
        await Promise.all([one.stop(), two.stop()]);
        await receiver.close();
      }
    });
  });

  describe('WEBHOOK_DELIVERY=off', () => {
    it('keeps a process out of delivering, leaving it to the others', async () => {
      const env = { DATABASE_URL: store.databaseUrl, WEBHOOK_POLL_MS: '20', WEBHOOK_SECRET_KEY: 'k'.repeat(32) };
      const receiver = await WebhookReceiver.start();
      const quiet = await startProcess({ ...env, WEBHOOK_DELIVERY: 'off' });
      try {
        const created = await quiet.client.post('/webhooks', webhookDocument({ url: receiver.url }));
        receiver.secret = created.body.meta.secret;
        await createUser(quiet.client);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.deepEqual(receiver.attempts, [], 'a process with WEBHOOK_DELIVERY=off delivered');
        const delivering = await startProcess(env);
        try {
          await receiver.until(() => receiver.delivered().length === 1, 'the delivery by the other process');
        } finally {
          await delivering.stop();
        }
      } finally {
        await quiet.stop();
        await receiver.close();
      }
    });
  });
});

describe('PostgreSQL without a service key', { skip: postgresSkipReason }, () => {
  it('starts, says what is off, and answers 503 to a new webhook and to an Idempotency-Key', async () => {
    const store = await openTestStore('PostgreSQL');
    const service = await startProcess({ DATABASE_URL: store.databaseUrl });
    try {
      await service.until(/webhooks and idempotency keys are off: on PostgreSQL they need SERVICE_SECRET_KEY/);
      const refused = await service.client.post('/webhooks', webhookDocument());
      assert.equal(refused.status, 503, refused.text);
      const keyed = await service.client.post('/users', userDocument(), { headers: { 'idempotency-key': 'k-1' } });
      assert.equal(keyed.status, 503, keyed.text);
      assert.equal(keyed.body.errors[0].code, 'IDEMPOTENCY_NOT_CONFIGURED');
      assert.equal((await service.client.post('/users', userDocument())).status, 201);
      assert.equal((await service.client.get('/users')).status, 200);
    } finally {
      await service.stop();
      await store.close();
    }
  });
});
