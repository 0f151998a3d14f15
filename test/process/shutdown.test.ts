/**
 * Shutting down under load: with 20 clients requesting over keep-alive connections, SIGTERM makes
 * readiness fail at once, every answer asks its client to leave (`Connection: close`), and the
 * process exits 0 only once they have: no request is met with a reset connection or a 5xx. Again
 * with the CPU contended by busy processes beside the service, as on a crowded host: that is when
 * an instant with no connection open, while clients reconnect, once ended the drain with their new
 * connections still waiting to be accepted, and closing the listener reset them (issue 40).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { userDocument } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { startProcess } from '../support/process.js';
import { send, type Outcome } from '../support/outcome.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const CLIENTS = 20;
const DRAIN_MS = 5000;
/** Long enough, beside the probe below, that only this setting keeps the idle process listening. */
const MIN_UNREADY_MS = 2000;
/** Requests answered before SIGTERM: every client has a keep-alive connection in use by then. */
const MIN_REQUESTS_BEFORE_SIGTERM = 200;
/**
 * How long the clients go on after readiness has failed, as behind a load balancer that probes it
 * every second: reconnecting all the while, as each answer asks them to leave.
 */
const LB_LAG_MS = 1000;
/** One more busy process than there are cores, so that the service waits its turn for one. */
const BURNERS = availableParallelism() + 1;
/** Burners stop by themselves after this, should the test process die without killing them. */
const BURN_LIMIT_MS = 30_000;

/**
 * Processes that keep a core busy each, until killed or for BURN_LIMIT_MS at most; resolves once
 * every one of them is spinning. Each is put in `into` as soon as it is started, to be killed.
 */
async function startBurners(count: number, into: ChildProcess[]): Promise<void> {
  // A pipe is written synchronously on Linux: the mark is out before the loop starts.
  const spin = `process.stdout.write('.'); const end = Date.now() + ${BURN_LIMIT_MS}; while (Date.now() < end);`;
  await Promise.all(
    Array.from({ length: count }, () => {
      const burner = spawn(process.execPath, ['-e', spin], { stdio: ['ignore', 'pipe', 'ignore'] });
      into.push(burner);
      return new Promise((resolve) => burner.stdout.once('data', resolve));
    }),
  );
}

/** How many times each value other than undefined occurs: `{ ECONNRESET: 17 }`. */
function tally(values: readonly (string | number | undefined)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) if (value !== undefined) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

forEachStore((kind) => {
  let store: TestStore;
  const burners: ChildProcess[] = [];
  before(async () => {
    store = await openTestStore(kind);
  });
  after(async () => {
    for (const burner of burners.splice(0)) burner.kill('SIGKILL');
    await store.close();
  });

  /**
   * Drives the clients through a SIGTERM and checks that none of them noticed; with `contended`,
   * every core is kept busy from when they are in full swing (before, it would only slow the start).
   */
  async function throughSigterm({ contended }: { contended: boolean }): Promise<void> {
    const service = await startProcess({
      DATABASE_URL: store.databaseUrl,
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      // The quiet spell alone must keep the clients from being reset while they reconnect.
      SHUTDOWN_MIN_UNREADY_MS: '0',
    });
    // On a connection of its own that closes at once: a pooled idle one would keep the drain waiting.
    const created = await send(service.baseUrl, 'POST', '/users', { body: userDocument() });
    assert.equal(created.status, 201);
    const userId = JSON.parse(created.body ?? '').data.id;
    // Like a load balancer: once it has seen readiness fail, no new request goes to this process.
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
      while (readinessFailedAfterMs === Infinity && ready) {
        const outcome = await send(service.baseUrl, 'GET', '/health/ready');
        if (terminated > 0 && outcome.status === 503) readinessFailedAfterMs = Date.now() - terminated;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, LB_LAG_MS));
      ready = false;
    })();

    // SIGTERM once the clients are in full swing, however slowly a loaded machine gets them there.
    await eventually(
      () => outcomes.length >= MIN_REQUESTS_BEFORE_SIGTERM,
      `${MIN_REQUESTS_BEFORE_SIGTERM} requests before SIGTERM`,
      30_000,
    );
    if (contended) await startBurners(BURNERS, burners);
    terminated = Date.now();
    const exit = service.kill('SIGTERM');
    // Had the process gone without failing readiness, the clients would otherwise go on for ever.
    void exit.then(() => (ready = false));
    await Promise.all([probe, ...clients]);
    assert.equal(await exit, 0);
    const exitedAfterMs = Date.now() - terminated;

    const errors = tally(outcomes.map((o) => o.error));
    const failures = tally(outcomes.map((o) => ((o.status ?? 0) >= 500 ? o.status : undefined)));
    assert.deepEqual(errors, {}, `of ${outcomes.length} requests, these many failed on the connection`);
    assert.deepEqual(failures, {}, `of ${outcomes.length} requests, these many were answered 5xx`);
    // Waiting its turn for a core, a contended process takes longer, still well inside the drain.
    const readinessBoundMs = contended ? 3000 : 1000;
    assert.ok(
      readinessFailedAfterMs < readinessBoundMs,
      `readiness failed only ${readinessFailedAfterMs} ms after SIGTERM`,
    );
    assert.ok(
      outcomes.slice(-CLIENTS).every((o) => o.connection === 'close'),
      'the last answers did not ask their clients to leave',
    );
    // Every client left, so the drain ended before its time was up.
    assert.ok(exitedAfterMs < DRAIN_MS, `the process took ${exitedAfterMs} ms to exit`);
    assert.match(service.output(), /shut down cleanly/);
  }

  describe('SIGTERM with 20 clients on keep-alive connections', () => {
    it('fails readiness at once, sends every client away with Connection: close, and resets none', () =>
      throughSigterm({ contended: false }));

    it('resets none either with every core kept busy by other processes', { timeout: 60_000 }, async () => {
      try {
        await throughSigterm({ contended: true });
      } finally {
        for (const burner of burners.splice(0)) burner.kill('SIGKILL');
      }
    });
  });

  describe('SIGTERM with no client', () => {
    it('keeps readiness failed for SHUTDOWN_MIN_UNREADY_MS before it stops listening', async () => {
      const service = await startProcess({
        DATABASE_URL: store.databaseUrl,
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        SHUTDOWN_MIN_UNREADY_MS: String(MIN_UNREADY_MS),
      });
      const terminated = performance.now();
      const exit = service.kill('SIGTERM');
      await service.until(/shutting down/);
      // Past the quiet spell that would otherwise have ended the drain: a load balancer probing now
      // must see readiness fail, not a refused connection it might take for a passing fault.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const probe = await send(service.baseUrl, 'GET', '/health/ready');
      assert.deepEqual({ status: probe.status, error: probe.error }, { status: 503, error: undefined });
      assert.equal(await exit, 0);
      const exitedAfterMs = performance.now() - terminated;
      assert.ok(exitedAfterMs >= MIN_UNREADY_MS, `the process exited ${exitedAfterMs} ms after SIGTERM`);
      assert.ok(exitedAfterMs < DRAIN_MS, `the process took ${exitedAfterMs} ms to exit`);
    });
  });
});
