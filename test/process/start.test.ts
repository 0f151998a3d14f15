import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { userDocument } from '../support/fixtures.js';
import { postgresMigrations } from '../../src/store/postgres/migrations.js';
import { admin, createTestSchema, postgresSkipReason } from '../support/postgres.js';
import { MAIN, runCommand, startProcess } from '../support/process.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-process-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the service process', () => {
  it('creates its SQLite file on first start, keeps the data across a restart, and exits 0 on SIGTERM', async () => {
    const databaseUrl = `sqlite:${join(dir, 'nested', 'circulation.db')}`;
    const first = await startProcess({ DATABASE_URL: databaseUrl });
    assert.ok(existsSync(join(dir, 'nested', 'circulation.db')));
    const created = await first.client.post('/users', userDocument());
    assert.equal(created.status, 201);
    assert.equal(await first.stop(), 0);

    const second = await startProcess({ DATABASE_URL: databaseUrl });
    const read = await second.client.get(`/users/${created.body.data.id}`);
    assert.deepEqual(read.body.data.attributes, created.body.data.attributes);
    assert.equal(await second.stop(), 0);
  });

  it('has every answer it gives checked against its document, however the request was sent', async () => {
    const service = await startProcess({ DATABASE_URL: `sqlite:${join(dir, 'answers.db')}` });
    assert.equal((await service.client.post('/users', userDocument())).status, 201);
    assert.equal((await fetch(`${service.baseUrl}/health/live`)).status, 200);
    assert.equal((await fetch(`${service.baseUrl}/users`, { method: 'HEAD' })).status, 401);
    assert.equal(await service.stop(), 0);
    assert.equal(await service.answersChecked(), 3);
  });

  it('refuses references to unknown products and newsletters with STRICT_REFERENCES=true, and registers them without', async () => {
    const databaseUrl = `sqlite:${join(dir, 'strict.db')}`;
    const subscription = {
      data: {
        type: 'subscriptions',
        attributes: { dateStarted: '2025-01-01T00:00:00Z' },
        relationships: { product: { data: { type: 'products', id: 'digital' } } },
      },
    };
    const strict = await startProcess({ DATABASE_URL: databaseUrl, STRICT_REFERENCES: 'true' });
    const user = (await strict.client.post('/users', userDocument())).body.data.id;
    const refused = await strict.client.post(`/users/${user}/subscriptions`, subscription);
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.body.errors[0].code, 'UNKNOWN_REFERENCE');
    assert.equal(await strict.stop(), 0);

    const registering = await startProcess({ DATABASE_URL: databaseUrl });
    assert.equal((await registering.client.post(`/users/${user}/subscriptions`, subscription)).status, 201);
    assert.equal((await registering.client.get('/products/digital')).status, 200);
    assert.equal(await registering.stop(), 0);
  });

  it(
    'migrates an empty PostgreSQL database on start and keeps the data across a restart',
    { skip: postgresSkipReason },
    async () => {
      const schema = await createTestSchema();
      try {
        const first = await startProcess({ DATABASE_URL: schema.url });
        const created = await first.client.post('/users', userDocument());
        assert.equal(created.status, 201, created.text);
        assert.equal(await first.stop(), 0);
        const second = await startProcess({ DATABASE_URL: schema.url });
        const read = await second.client.get(`/users/${created.body.data.id}`);
        assert.deepEqual(read.body.data.attributes, created.body.data.attributes);
        assert.equal(await second.stop(), 0);
      } finally {
        await schema.drop();
      }
    },
  );

  it(
    'migrates a PostgreSQL database with the migrate command, and again changes nothing',
    { skip: postgresSkipReason },
    async () => {
      const schema = await createTestSchema();
      try {
        for (let run = 0; run < 2; run += 1) {
          const result = runCommand(schema.url, 'migrate');
          assert.equal(result.status, 0, result.stderr);
        }
        const versions = await admin('SELECT version FROM schema_migrations', [], schema.name);
        assert.deepEqual(
          versions.map((r) => r.version),
          postgresMigrations.map((m) => m.version),
        );
      } finally {
        await schema.drop();
      }
    },
  );

  it('refuses to start when PostgreSQL cannot be reached, saying so in one line', () => {
    const result = spawnSync(process.execPath, MAIN, {
      env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.notEqual(result.status, 0);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(
      lines[0] as string,
      /^circulation: could not open the PostgreSQL database postgres:\/\/postgres@127\.0\.0\.1:1\/none: .*ECONNREFUSED/,
    );
  });

  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_POOL_SIZE', 'many'],
    ['PUBLIC_URL', 'not a url'],
    ['TRUST_PROXY', 'perhaps'],
  ]) {
    it(`refuses to start on an invalid ${name}, with one line naming it`, () => {
      const database = name === 'DATABASE_POOL_SIZE' ? 'postgres://127.0.0.1/x' : join(dir, 'never.db');
      const result = spawnSync(process.execPath, MAIN, {
        env: { ...process.env, DATABASE_URL: database, [name as string]: value as string },
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.notEqual(result.status, 0);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] as string, new RegExp(`invalid setting ${name}`));
    });
  }
});
