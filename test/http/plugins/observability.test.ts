/**
 * What operators rely on, in process: health and readiness, metrics, request ids, one log line
 * per request, a bare 500 for the unexpected, and a 503 when the database cannot answer.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createSubscription, createUser, issueKey, onlyError } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

/** A log destination the test reads: one parsed JSON object per line. */
function memoryLog() {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: { level: 'info', stream } };
}

forEachStore((kind) => {
  let service: Service;
  let log: ReturnType<typeof memoryLog>;
  before(async () => {
    log = memoryLog();
    service = await startService(kind, { logger: log.logger });
  });
  after(() => service.close());

  describe('health', () => {
    it('answers liveness and readiness without a credential, and says no more than the state', async () => {
      for (const [path, status] of [
        ['/health/live', 'live'],
        ['/health/ready', 'ready'],
      ]) {
        const response = await service.client.as(null).get(path as string);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body, { meta: { status } });
      }
    });
  });

  describe('metrics', () => {
    it('are Prometheus text, counted by route template, never by raw id', async () => {
      const userId = await createUser(service.client);
      await createSubscription(service.client, userId);
      await service.client.get(`/users/${userId}`);
      const response = await fetch(`${service.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${service.client.credential}` },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      assert.match(text, /http_requests_total\{method="GET",route="\/users\/:user_id",status="200"\} \d+/);
      assert.match(
        text,
        /http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/users",status="201"\}/,
      );
      assert.match(text, /store_operation_duration_seconds_count\{operation="users\.get",outcome="ok"\} \d+/);
      assert.match(text, /nodejs_eventloop_lag_seconds \d/);
      assert.match(text, /process_resident_memory_bytes \d/);
      if (kind === 'PostgreSQL') assert.match(text, /store_pool_connections\{state="total"\} \d/);
      assert.ok(!text.includes(`/users/${userId}"`), 'a raw id became a label');
    });

    it('need a credential with the metrics scope (or admin), which reads nothing else', async () => {
      const get = (credential: string | null, path = '/metrics') =>
        fetch(`${service.baseUrl}${path}`, {
          headers: {
            accept: 'application/vnd.api+json',
            ...(credential ? { authorization: `Bearer ${credential}` } : {}),
          },
        });
      assert.equal((await get(null)).status, 401);
      assert.equal((await get((await issueKey(service.client, ['read'])).secret)).status, 403);
      const scraper = (await issueKey(service.client, ['metrics'])).secret;
      assert.equal((await get(scraper)).status, 200);
      assert.equal((await get(scraper, '/users')).status, 403);
    });
  });

  describe('request ids', () => {
    it('echo a request id the client sends', async () => {
      const response = await service.client.get('/users', { headers: { 'x-request-id': 'trace-abc.123' } });
      assert.equal(response.headers.get('x-request-id'), 'trace-abc.123');
    });

    it('are made up when the client sends none, or an unusable one', async () => {
      for (const headers of [{}, { 'x-request-id': 'bad id with spaces' }] as Record<string, string>[]) {
        const response = await service.client.get('/users', { headers });
        assert.match(response.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      }
    });
  });

  describe('the request log', () => {
    it('has one line per request with id, method, route template, status, duration and credential', async () => {
      const userId = await createUser(service.client);
      const before = log.lines.length;
      await service.client.get(`/users/${userId}`, { headers: { 'x-request-id': 'one-line-check' } });
      const lines = log.lines.slice(before).filter((l) => l.requestId === 'one-line-check');
      assert.equal(lines.length, 1, JSON.stringify(lines));
      const line = lines[0]!;
      assert.equal(line.method, 'GET');
      assert.equal(line.route, '/users/:user_id');
      assert.equal(line.status, 200);
      assert.equal(typeof line.durationMs, 'number');
      assert.equal(line.credential, 'CIRCULATION_ADMIN_KEY');
    });
  });
});

describe('unexpected errors', () => {
  it('answer a bare 500 naming only the request id, and log the stack', async () => {
    const log = memoryLog();
    const service = await startService('SQLite', { logger: log.logger });
    try {
      // A store method that fails in a way nobody planned for.
      service.store.users.get = async () => {
        throw new TypeError('boom: an unplanned failure');
      };
      const response = await service.client.get('/users/1', { headers: { 'x-request-id': 'the-500' } });
      const error = onlyError(response, 500);
      assert.equal(error.title, 'Internal Server Error');
      assert.match(error.detail, /the-500/);
      assert.ok(!response.text.includes('boom'), 'the cause reached the client');
      const logged = log.lines.find((l) => l.requestId === 'the-500' && l.err);
      assert.match(logged?.err?.stack ?? '', /TypeError: boom/);
    } finally {
      await service.close();
    }
  });
});

describe('a SQLite file locked by another process', () => {
  it('answers 503 with Retry-After while locked, and serves again once released', async () => {
    const service = await startService('SQLite');
    try {
      const userId = await createUser(service.client);
      const [{ file }] = (await service.sql('PRAGMA database_list')) as [{ file: string }];
      const other = new Database(file);
      other.exec('BEGIN EXCLUSIVE');
      try {
        const response = await service.client.put(`/users/${userId}`, {
          data: { type: 'users', id: userId, attributes: { givenName: 'Locked' } },
        });
        const error = onlyError(response, 503);
        assert.equal(error.title, 'Service Unavailable');
        assert.equal(response.headers.get('retry-after'), '1');
      } finally {
        other.exec('ROLLBACK');
        other.close();
      }
      assert.equal((await service.client.get(`/users/${userId}`)).status, 200);
    } finally {
      await service.close();
    }
  });
});

describe('a full disk under SQLite', () => {
  it('answers 503 rather than crash, and the process goes on serving', async () => {
    const service = await startService('SQLite');
    try {
      const write = service.store.users.create;
      // What better-sqlite3 throws when the disk (or the file's size limit) is full.
      service.store.users.create = async () => {
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      };
      const error = onlyError(
        await service.client.post('/users', {
          data: { type: 'users', attributes: { email: 'full@example.com', familyName: 'Full' } },
        }),
        503,
      );
      assert.equal(error.title, 'Service Unavailable');
      service.store.users.create = write;
      assert.equal((await service.client.get('/users')).status, 200);
    } finally {
      await service.close();
    }
  });
});
