/**
 * Real processes and real signals: a write acknowledged survives kill -9; SIGTERM lets the
 * requests in flight finish and exits 0; a database outage is a fast 503 that heals itself.
 */
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { uniqueEmail, userDocument } from '../support/fixtures.js';
import { createTestSchema, TEST_DATABASE_URL, postgresSkipReason, type TestSchema } from '../support/postgres.js';
import { startProcess } from '../support/process.js';
import { MEDIA_TYPE, TEST_ADMIN_KEY } from '../support/service.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

/** A POST that resolves with its status (0 when the connection broke), on a connection of its own. */
function post(baseUrl: string, path: string, body: unknown, agent: Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const request = httpRequest(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': MEDIA_TYPE,
          accept: MEDIA_TYPE,
          authorization: `Bearer ${TEST_ADMIN_KEY}`,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', () => resolve({ status: 0, text }));
      },
    );
    request.on('error', () => resolve({ status: 0, text: '' }));
    request.end(payload);
  });
}

/** Waits until the service has received `count` requests (answered or in flight), from its metrics. */
async function untilReceived(baseUrl: string, count: number): Promise<{ inFlight: number }> {
  for (;;) {
    const metrics = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` } });
    const text = await metrics.text();
    // The metrics request itself is in flight while it is answered.
    const inFlight = Number(/^http_requests_in_flight (\d+)/m.exec(text)?.[1] ?? 0) - 1;
    const answered = [...text.matchAll(/^http_requests_total\{method="POST",route="\/users",status="\d+"\} (\d+)/gm)]
      .map((m) => Number(m[1]))
      .reduce((a, b) => a + b, 0);
    if (inFlight + answered >= count) return { inFlight };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

forEachStore((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  describe('a crash (SIGKILL) in the middle of a stream of creates', () => {
    it('loses no user whose create was answered 201, and leaves each intact', async () => {
      const service = await startProcess({ DATABASE_URL: store.databaseUrl });
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const acknowledged: { id: string; attributes: unknown }[] = [];
      let streaming = true;
      const streams = Array.from({ length: 8 }, async () => {
        while (streaming) {
          const { status, text } = await post(service.baseUrl, '/users', userDocument({ givenName: 'Durable' }), agent);
          if (status === 201) {
            const data = JSON.parse(text).data;
            acknowledged.push({ id: data.id, attributes: data.attributes });
          }
          if (status === 0) return;
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      streaming = false;
      assert.equal(await service.kill('SIGKILL'), 'SIGKILL');
      await Promise.all(streams);
      agent.destroy();
      assert.ok(acknowledged.length > 20, `only ${acknowledged.length} creates were acknowledged`);

      const restarted = await startProcess({ DATABASE_URL: store.databaseUrl });
      try {
        for (const { id, attributes } of acknowledged) {
          const read = await restarted.client.get(`/users/${id}`);
          assert.equal(read.status, 200, `user ${id} was acknowledged but is gone`);
          assert.deepEqual(read.body.data.attributes, attributes);
        }
      } finally {
        await restarted.stop();
      }
    });
  });

  describe('SIGTERM with 200 requests in flight', () => {
    it('answers every one of them with a 2xx or 4xx and exits 0 within the grace period', async () => {
      const service = await startProcess({ DATABASE_URL: store.databaseUrl, SHUTDOWN_GRACE_MS: '20000' });
      const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
      // Password hashing makes each create take a while, so all 200 are still running at SIGTERM.
      const inFlight = Array.from({ length: 200 }, (_, i) =>
        post(
          service.baseUrl,
          '/users',
          i % 10 === 0
            ? { data: { type: 'users' } }
            : userDocument({ email: uniqueEmail(), password: `pass-${i}-word` }),
          agent,
        ),
      );
      const atSigterm = await untilReceived(service.baseUrl, 200);
      assert.ok(atSigterm.inFlight >= 50, `only ${atSigterm.inFlight} requests were in flight at SIGTERM`);
      const started = Date.now();
      const exit = service.stop();
      const results = await Promise.all(inFlight);
      const code = await exit;
      agent.destroy();
      const statuses = results.map((r) => r.status);
      assert.ok(
        statuses.every((s) => (s >= 200 && s < 300) || (s >= 400 && s < 500)),
        `statuses: ${[...new Set(statuses)].join(', ')}`,
      );
      assert.equal(statuses.filter((s) => s === 201).length, 180);
      assert.equal(code, 0);
      assert.ok(Date.now() - started < 20_000);
      assert.match(service.output(), /shut down cleanly/);
    });
  });
});

describe('a PostgreSQL outage', { skip: postgresSkipReason }, () => {
  let schema: TestSchema;
  before(async () => {
    schema = await createTestSchema();
  });
  after(() => schema?.drop());

  it('fails requests fast with 503, fails readiness, and recovers without a restart', async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const url = new URL(schema.url);
    url.port = String(proxy.port);
    const service = await startProcess({ DATABASE_URL: url.href, DATABASE_CONNECT_TIMEOUT_MS: '1000' });
    try {
      assert.equal((await service.client.get('/users')).status, 200);
      await proxy.cut();

      const started = Date.now();
      const during = await service.client.get('/users');
      assert.equal(during.status, 503, during.text);
      assert.equal(during.body.errors[0].title, 'Service Unavailable');
      assert.ok(Date.now() - started < 3000, `the 503 took ${Date.now() - started} ms`);
      const ready = await service.client.as(null).get('/health/ready');
      assert.equal(ready.status, 503);
      assert.equal((await service.client.as(null).get('/health/live')).status, 200);

      await proxy.restore();
      let recovered = 0;
      for (let attempt = 0; attempt < 20 && recovered !== 200; attempt += 1) {
        recovered = (await service.client.get('/users')).status;
        if (recovered !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.equal(recovered, 200);
      assert.equal((await service.client.as(null).get('/health/ready')).status, 200);
      assert.equal((await service.client.post('/users', userDocument())).status, 201);
    } finally {
      await service.stop();
      await proxy.close();
    }
  });
});
