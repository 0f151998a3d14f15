/**
 * Credentials as an operator meets them: the first start's admin secret, the `keys` command,
 * a revocation reaching every process, and AUTH=off kept to loopback.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueKey } from '../support/fixtures.js';
import { CREDENTIAL_MAX_AGE_MS } from '../../src/store/postgres/credentials.js';
import { DATA_VERSION_MAX_AGE_MS } from '../../src/store/sqlite/database.js';
import { changeListenerName } from '../../src/store/postgres/change-listener.js';
import { eventually } from '../support/eventually.js';
import { MAIN, runCommand, startProcess, type ServiceProcess } from '../support/process.js';
import type { Client } from '../support/service.js';
import { forEachStore, openTestStore, type StoreKind, type TestStore } from '../support/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-credentials-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const keys = (databaseUrl: string, ...args: string[]) => runCommand(databaseUrl, 'keys', ...args);

/**
 * Waits for `client` to refuse a credential just revoked elsewhere: SQLite once its process reads
 * the database's data version again (DATA_VERSION_MAX_AGE_MS); PostgreSQL once the revocation's
 * notification arrives, which must take well under a second, far within the bound of
 * CREDENTIAL_MAX_AGE_MS that a lost one would take.
 */
async function refusedOnceHeard(kind: StoreKind, client: Client, secret: string): Promise<void> {
  if (kind === 'SQLite') {
    await eventually(
      async () => (await client.as(secret).get('/users')).status === 401,
      'the refusal, well within the time a loaded machine takes for a few requests past the bound',
      DATA_VERSION_MAX_AGE_MS + 1_900,
    );
    return;
  }
  await eventually(
    async () => (await client.as(secret).get('/users')).status === 401,
    'the refusal within a fifth of the bound a lost notification could take',
    CREDENTIAL_MAX_AGE_MS / 5,
  );
}

/** The backend pid of `service`'s credential listener on PostgreSQL, once it is listening. */
async function listenerOf(store: TestStore, service: ServiceProcess): Promise<number> {
  return eventually(async () => {
    const [row] = await store.sql(
      "SELECT pid FROM pg_stat_activity WHERE application_name = ? AND query LIKE 'LISTEN %'",
      [changeListenerName(service.pid)],
    );
    return row?.pid as number | undefined;
  }, `process ${service.pid} to listen for credential changes`);
}

/**
 * Accepted many times over by `service`: whatever a process keeps of a credential, it has kept this
 * one. On PostgreSQL a process listens from its first authentication on, and keeps credentials
 * only once it listens.
 */
async function acceptedOften(store: TestStore, service: ServiceProcess, secret: string): Promise<void> {
  assert.equal((await service.client.as(secret).get('/users')).status, 200);
  if (store.kind !== 'SQLite') await listenerOf(store, service);
  for (let i = 0; i < 20; i += 1) assert.equal((await service.client.as(secret).get('/users')).status, 200);
}

forEachStore((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  describe('the first start', () => {
    it('creates an admin credential, writes its secret to a file only its owner reads, and prints only where', async () => {
      const file = join(dir, `${kind}-first-admin.key`);
      const first = await startProcess({
        DATABASE_URL: store.databaseUrl,
        CIRCULATION_ADMIN_KEY: '',
        FIRST_ADMIN_KEY_FILE: file,
      });
      await first.until(/export CIRCULATION_KEY=\$\(cat \S+\)/);
      const secret = readFileSync(file, 'utf8').trim();
      assert.match(secret, /^circ_\d+_\S{43}$/);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.ok(first.output().includes(file), first.output());
      assert.ok(!first.output().includes(secret.slice(-43)), 'the output shows the secret');
      assert.equal((await first.client.as(secret).get('/api-keys')).status, 200);
      await first.stop();

      const second = await startProcess({
        DATABASE_URL: store.databaseUrl,
        CIRCULATION_ADMIN_KEY: '',
        FIRST_ADMIN_KEY_FILE: join(dir, `${kind}-second.key`),
      });
      assert.doesNotMatch(second.output(), /first admin credential/);
      assert.equal(existsSync(join(dir, `${kind}-second.key`)), false);
      assert.equal((await second.client.as(secret).get('/users')).status, 200);
      await second.stop();
    });

    // Where the secret goes is the start's choice, the same on every store; that the credential is
    // made once, in the store, the test above shows on each.
    if (kind === 'SQLite')
      it('shows the secret on the terminal when asked to, with FIRST_ADMIN_KEY_FILE=-', async () => {
        const fresh = await openTestStore(kind);
        try {
          const first = await startProcess({
            DATABASE_URL: fresh.databaseUrl,
            CIRCULATION_ADMIN_KEY: '',
            FIRST_ADMIN_KEY_FILE: '-',
          });
          const secret = (await first.until(/^ {2}(circ_\S+)$/m))[1];
          assert.equal((await first.client.as(secret ?? null).get('/api-keys')).status, 200);
          await first.stop();
        } finally {
          await fresh.close();
        }
      });

    // Only a SQLite database has a folder of its own to write beside.
    if (kind === 'SQLite')
      it('writes the secret beside a SQLite database when told nothing', async () => {
        const fresh = await openTestStore(kind);
        try {
          const first = await startProcess({
            DATABASE_URL: fresh.databaseUrl,
            CIRCULATION_ADMIN_KEY: '',
            FIRST_ADMIN_KEY_FILE: '',
          });
          const beside = join(dirname(fresh.databaseUrl.slice('sqlite:'.length)), 'first-admin.key');
          await first.until(/export CIRCULATION_KEY/);
          assert.match(readFileSync(beside, 'utf8'), /^circ_/);
          await first.stop();
        } finally {
          await fresh.close();
        }
      });
  });

  describe('circulation keys', () => {
    // Two processes serve every test of credentials here: each test uses keys of its own.
    let a: ServiceProcess;
    let b: ServiceProcess;
    before(async () => {
      a = await startProcess({ DATABASE_URL: store.databaseUrl });
      b = await startProcess({ DATABASE_URL: store.databaseUrl });
    });
    after(() => Promise.all([a?.stop(), b?.stop()]));

    it('creates a credential whose secret the service accepts, within its scope', async () => {
      const created = keys(store.databaseUrl, 'create', '--name', 'fulfilment', '--scope', 'read');
      assert.equal(created.status, 0, created.stderr);
      const secret = /^ {2}(circ_\S+)$/m.exec(created.stdout)?.[1];
      assert.ok(secret, created.stdout);
      const id = /created key (\d+)/.exec(created.stdout)?.[1] as string;

      assert.equal((await a.client.as(secret).get('/users')).status, 200);
      assert.equal((await a.client.as(secret).post('/users', {})).status, 403);

      const listed = keys(store.databaseUrl, 'list');
      assert.equal(listed.status, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^${id}\\s+fulfilment\\s+read\\s+default\\s+\\S+\\s+active$`, 'm'));
      assert.ok(!listed.stdout.includes(secret.slice(-43)), 'list shows a secret');

      const revoked = keys(store.databaseUrl, 'revoke', id);
      assert.equal(revoked.status, 0, revoked.stderr);
      await refusedOnceHeard(kind, a.client, secret);
      assert.match(keys(store.databaseUrl, 'list').stdout, new RegExp(`^${id}\\s.*revoked`, 'm'));
    });

    it("refuses a credential revoked through another process or the command line however often it was just accepted: on SQLite within the data version's age, on PostgreSQL once notified", async () => {
      const key = await issueKey(a.client, ['read']);
      await acceptedOften(store, b, key.secret);
      assert.equal((await a.client.delete(`/api-keys/${key.id}`)).status, 204);
      await refusedOnceHeard(kind, b.client, key.secret);
      // And through the command line, to a key the other process has just accepted as well.
      const other = await issueKey(b.client, ['read']);
      await acceptedOften(store, a, other.secret);
      assert.equal(keys(store.databaseUrl, 'revoke', other.id).status, 0);
      await refusedOnceHeard(kind, a.client, other.secret);
    });

    // Only PostgreSQL keeps credentials on the word of a connection that can be lost.
    if (kind === 'PostgreSQL')
      it('refuses a credential revoked while a process has lost its listening connection from the very next request, and hears of revocations again once reconnected', async () => {
        const key = await issueKey(b.client, ['read']);
        await acceptedOften(store, a, key.secret);
        const listener = await listenerOf(store, a);
        await store.sql('SELECT pg_terminate_backend(?)', [listener]);
        await eventually(
          async () => (await store.sql('SELECT 1 FROM pg_stat_activity WHERE pid = ?', [listener])).length === 0,
          'the listening connection to end',
        );
        // Its notification goes unheard in a: only reading the store tells a of it.
        assert.equal((await b.client.delete(`/api-keys/${key.id}`)).status, 204);
        assert.equal((await a.client.as(key.secret).get('/users')).status, 401);

        assert.notEqual(await listenerOf(store, a), listener);
        const other = await issueKey(b.client, ['read']);
        await acceptedOften(store, a, other.secret);
        assert.equal((await b.client.delete(`/api-keys/${other.id}`)).status, 204);
        await refusedOnceHeard(kind, a.client, other.secret);
      });

    // A create refused for its scopes, before the store is read: test/cli/usage.test.ts.

    it('says only that a key to revoke does not exist, without the usage', () => {
      const result = keys(store.databaseUrl, 'revoke', '987654');
      assert.equal(result.status, 1);
      // After the line naming the database, which every command writes first.
      assert.match(
        result.stderr,
        /^circulation: using the \w+ database .*\ncirculation: there is no API key with id 987654\n$/,
      );
    });
  });

  // AUTH=off is decided before the store is asked anything: the authentication hook lets a request
  // in before it would look a credential up (http/plugins/auth.ts), and the refusal of a host
  // beyond loopback comes before the store is opened (cli/serving.ts). Asked once, on SQLite.
  if (kind === 'SQLite')
    describe('AUTH=off', () => {
      it('lets requests in without a credential on loopback, with a warning', async () => {
        const service = await startProcess({ DATABASE_URL: store.databaseUrl, AUTH: 'off' });
        try {
          assert.equal((await service.client.as(null).get('/users')).status, 200);
          assert.match(service.output(), /AUTH=off/);
        } finally {
          await service.stop();
        }
      });

      it('refuses to listen beyond loopback', () => {
        const result = spawnSync(process.execPath, MAIN, {
          env: { ...process.env, DATABASE_URL: store.databaseUrl, AUTH: 'off', HOST: '0.0.0.0', PORT: '0' },
          encoding: 'utf8',
          timeout: 20_000,
        });
        assert.notEqual(result.status, 0);
        assert.match(result.stderr, /AUTH=off .* only on loopback/);
      });
    });
});
