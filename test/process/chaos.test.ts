/**
 * Chaos on PostgreSQL, and on Citus: two service processes under a stream of mixed writes, delivering webhooks
 * for every event; one is killed with SIGKILL and started again, the other stopped with SIGTERM.
 * No write that was acknowledged is lost, and every event reaches the endpoint, in order per
 * user; a message comes twice only as the webhooks page of docs/ allows (an attempt the stopping or dying
 * process was in the middle of), so at most as many as were in flight at those two moments.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVENT_TYPES } from '../../src/domain/events.js';
import { subscriptionDocument, userDocument, webhookDocument } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { citusSkipReason } from '../support/citus.js';
import { postgresSkipReason } from '../support/postgres.js';
import { startProcess, TEST_SERVICE_KEY, type ServiceProcess } from '../support/process.js';
import { send } from '../support/outcome.js';
import { openTestStore, type TestStore } from '../support/stores.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const WRITERS = 6;
const CONCURRENCY = 8;

/** One request on a connection of its own: the status and body, or undefined when no answer came. */
async function attempt(baseUrl: string, method: string, path: string, body?: unknown) {
  const outcome = await send(baseUrl, method, path, { body, timeoutMs: 5000 });
  if (outcome.status === undefined) return undefined;
  return { status: outcome.status, body: outcome.body ? JSON.parse(outcome.body) : null };
}

interface Reader {
  id: string;
  /** The jobTitle its last acknowledged change set. */
  jobTitle: string | null;
  /** A change to it went unanswered: it may or may not have been made, so its state is not known. */
  uncertain: boolean;
  subscriptions: string[];
}

const SERVERS = [
  { kind: 'PostgreSQL', skip: postgresSkipReason },
  { kind: 'Citus', skip: citusSkipReason },
] as const;

for (const { kind, skip } of SERVERS)
  describe(`chaos on ${kind}`, { skip }, () => {
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

    it('loses no acknowledged write and no event, and repeats a delivery only as promised', async (t) => {
      const env = {
        DATABASE_URL: store.databaseUrl,
        SERVICE_SECRET_KEY: TEST_SERVICE_KEY,
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_RETRY_MAX_MS: '500',
        WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        SHUTDOWN_DRAIN_MS: '1000',
      };
      const processes: (ServiceProcess | undefined)[] = [await startProcess(env), await startProcess(env)];
      const created = await processes[0]!.client.post(
        '/webhooks',
        webhookDocument({ url: receiver.url, events: [...EVENT_TYPES] }),
      );
      assert.equal(created.status, 201, created.text);
      receiver.secret = created.body.meta.secret;

      const readers: Reader[] = [];
      let writing = true;
      let acknowledged = 0;
      const writer = async (w: number) => {
        for (let n = 0; writing; n += 1) {
          const target = processes[(n + w) % 2] ?? processes[(n + w + 1) % 2];
          if (!target) {
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          const url = target.baseUrl;
          const made = await attempt(url, 'POST', '/users', userDocument());
          if (made?.status !== 201) continue;
          acknowledged += 1;
          const reader: Reader = { id: made.body.data.id, jobTitle: null, uncertain: false, subscriptions: [] };
          readers.push(reader);
          const steps = [
            async () => {
              const r = await attempt(url, 'POST', `/users/${reader.id}/subscriptions`, subscriptionDocument());
              if (r?.status === 201) reader.subscriptions.push(r.body.data.id);
              return r;
            },
            async () => {
              const jobTitle = `title ${n}`;
              const r = await attempt(url, 'PATCH', `/users/${reader.id}`, {
                data: { type: 'users', id: reader.id, attributes: { jobTitle } },
              });
              if (r?.status === 200) reader.jobTitle = jobTitle;
              return r;
            },
            async () =>
              reader.subscriptions[0] === undefined
                ? { status: 200, body: null }
                : attempt(url, 'PUT', `/users/${reader.id}/subscriptions/${reader.subscriptions[0]}/expire`),
          ];
          for (const step of steps) {
            const result = await step();
            if (result === undefined || result.status >= 500) {
              reader.uncertain = true;
              break;
            }
            acknowledged += 1;
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));

      await new Promise((resolve) => setTimeout(resolve, 1500));
      const killed = processes[0]!;
      processes[0] = undefined;
      assert.equal(await killed.kill('SIGKILL'), 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      processes[0] = await startProcess(env);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const stopped = processes[1]!;
      processes[1] = undefined;
      assert.equal(await stopped.kill('SIGTERM'), 0);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      writing = false;
      await Promise.all(writers);
      const survivor = processes[0]!;
      try {
        assert.ok(acknowledged > 100, `only ${acknowledged} writes were acknowledged`);

        // No acknowledged write lost.
        for (const reader of readers) {
          const read = await survivor.client.get(`/users/${reader.id}`);
          assert.equal(read.status, 200, `user ${reader.id} was acknowledged but is gone`);
          if (!reader.uncertain) assert.equal(read.body.data.attributes.jobTitle, reader.jobTitle, `user ${reader.id}`);
          const subscriptions = (await survivor.client.get(`/users/${reader.id}/subscriptions`)).body.data as {
            id: string;
          }[];
          for (const id of reader.subscriptions) {
            assert.ok(
              subscriptions.some((s) => s.id === id),
              `subscription ${id} was acknowledged but is gone`,
            );
          }
        }

        // Every event delivered, once answered 2xx, and the rest only as promised.
        const events = (
          await store.sql('SELECT id, user_id FROM audit_log WHERE event_type IS NOT NULL ORDER BY id')
        ).map((r) => ({ id: String(r.id), userId: String(r.user_id) }));
        await eventually(
          async () =>
            Number((await store.sql("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'"))[0]?.n) ===
            0,
          'every delivery to be made',
          30_000,
        );
        assert.deepEqual(await store.sql("SELECT id FROM webhook_deliveries WHERE state = 'failed'"), []);
        const delivered = receiver.delivered();
        const times = new Map<string, number>();
        for (const attempt of delivered) times.set(attempt.id, (times.get(attempt.id) ?? 0) + 1);
        const lost = events.filter((e) => !times.has(e.id));
        assert.deepEqual(lost, [], `${lost.length} of ${events.length} events never reached the endpoint`);
        const twice = [...times].filter(([, n]) => n > 1);
        t.diagnostic(
          `${acknowledged} writes acknowledged, ${events.length} events, ${delivered.length} deliveries answered 2xx, ` +
            `${twice.length} of them twice`,
        );
        assert.ok(twice.length <= 2 * CONCURRENCY, `${twice.length} events were delivered more than once`);
        assert.ok(
          receiver.attempts.every((a) => a.verified),
          'a message was not signed with the secret',
        );

        // In order per user: the first arrival of each event after the one before it.
        const first = new Map<string, number>();
        delivered.forEach((a, i) => first.has(a.id) || first.set(a.id, i));
        const byUser = new Map<string, string[]>();
        for (const event of events) byUser.set(event.userId, [...(byUser.get(event.userId) ?? []), event.id]);
        for (const [userId, ids] of byUser) {
          const arrivals = ids.map((id) => first.get(id) as number);
          assert.deepEqual(
            arrivals,
            [...arrivals].sort((x, y) => x - y),
            `the events of user ${userId} came out of order`,
          );
        }
      } finally {
        await survivor.stop();
      }
    });
  });
