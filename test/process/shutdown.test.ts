/**
 * Shutting down under load: with 20 clients requesting over keep-alive connections, SIGTERM makes
 * readiness fail at once, every answer asks its client to leave (`Connection: close`), and the
 * process exits 0 only once they have: no request is met with a reset connection or a 5xx.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { userDocument } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { startProcess } from '../support/process.js';
import { send, type Outcome } from '../support/outcome.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const CLIENTS = 20;
const DRAIN_MS = 5000;
/** Requests answered before SIGTERM: every client has a keep-alive connection in use by then. */
const MIN_REQUESTS_BEFORE_SIGTERM = 200;

forEachStore((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  describe('SIGTERM with 20 clients on keep-alive connections', () => {
    it('fails readiness at once, sends every client away with Connection: close, and resets none', async () => {
      const service = await startProcess({ DATABASE_URL: store.databaseUrl, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
      // On a connection of its own that closes at once: a pooled idle one would keep the drain waiting.
      const created = await send(service.baseUrl, 'POST', '/users', { body: userDocument() });
      assert.equal(created.status, 201);
      const userId = JSON.parse(created.body ?? '').data.id;
      // Like a load balancer: once readiness fails, no new request goes to this process.
      let ready = true;
      let terminated = 0;
      let readinessFailedAfterMs = Infinity;
      const outcomes: Outcome[] = [];
      const clients = Array.from({ length: CLIENTS }, async (_, i) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        for (let n = 0; ready; n += 1) {
          const outcome =
            (n + i) % 5 === 0
              ? await send(service.baseUrl, 'POST', '/users', { body: userDocument(), agent })
              : await send(service.baseUrl, 'GET', `/users/${userId}`, { agent });
          outcomes.push(outcome);
        }
        agent.destroy();
      });
      const probe = (async () => {
        while (ready) {
          const outcome = await send(service.baseUrl, 'GET', '/health/ready');
          if (terminated > 0 && outcome.status === 503) {
            readinessFailedAfterMs = Date.now() - terminated;
            ready = false;
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();

      // SIGTERM once the clients are in full swing, however slowly a loaded machine gets them there.
      await eventually(
        () => outcomes.length >= MIN_REQUESTS_BEFORE_SIGTERM,
        `${MIN_REQUESTS_BEFORE_SIGTERM} requests before SIGTERM`,
        30_000,
      );
      terminated = Date.now();
      const exit = service.kill('SIGTERM');
      // Had the process gone without failing readiness, the clients would otherwise go on for ever.
      void exit.then(() => (ready = false));
      await Promise.all([probe, ...clients]);
      assert.equal(await exit, 0);
      const exitedAfterMs = Date.now() - terminated;

      const errors = outcomes.filter((o) => o.error !== undefined).map((o) => o.error);
      const failures = outcomes.filter((o) => (o.status ?? 0) >= 500).map((o) => o.status);
      assert.deepEqual(errors, [], `${errors.length} of ${outcomes.length} requests failed on the connection`);
      assert.deepEqual(failures, [], `${failures.length} of ${outcomes.length} requests were answered 5xx`);
      assert.ok(readinessFailedAfterMs < 1000, `readiness failed only ${readinessFailedAfterMs} ms after SIGTERM`);
      assert.ok(
        outcomes.slice(-CLIENTS).every((o) => o.connection === 'close'),
        'the last answers did not ask their clients to leave',
      );
      // Every client left, so the drain ended before its time was up.
      assert.ok(exitedAfterMs < DRAIN_MS, `the process took ${exitedAfterMs} ms to exit`);
      assert.match(service.output(), /shut down cleanly/);
    });
  });
});
