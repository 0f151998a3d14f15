/**
 * Secrets stay secret: no password, credential secret, hash or Authorization header in any log
 * line of a real service process, and no password or secret in clear anywhere in the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueKey, uniqueEmail, userDocument } from '../support/fixtures.js';
import { startProcess } from '../support/process.js';
import { startService, TEST_ADMIN_KEY, type Service } from '../support/service.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const PASSWORD = 'first-password-f00d1e';
const NEW_PASSWORD = 'second-password-c0ffee';
const REFUSED_PASSWORD = `refused-password-${'z'.repeat(300)}`;

/** Requests that carry every kind of secret: passwords in bodies, credentials in headers. */
async function exerciseSecrets(client: import('../support/service.js').Client) {
  const created = await client.post('/users', userDocument({ password: PASSWORD, email: uniqueEmail() }));
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id;
  const changed = await client.put(`/users/${id}`, {
    data: { type: 'users', id, attributes: { password: NEW_PASSWORD } },
  });
  assert.equal(changed.status, 204);
  assert.equal((await client.post('/users', userDocument({ password: REFUSED_PASSWORD }))).status, 422);
  const key = await issueKey(client, ['read']);
  assert.equal((await client.as(key.secret).get('/users')).status, 200);
  const basic = Buffer.from(`user:${key.secret}`).toString('base64');
  assert.equal((await client.as(null).get('/users', { headers: { authorization: `Basic ${basic}` } })).status, 200);
  assert.equal((await client.as(`${key.secret.slice(0, -1)}x`).get('/users')).status, 401);
  return { userId: id, keySecret: key.secret, email: created.body.data.attributes.email as string };
}

function assertNoneIn(text: string, secrets: string[], where: string) {
  for (const secret of secrets) assert.ok(!text.includes(secret), `${where} contains ${secret.slice(0, 24)}…`);
}

forEachStore((kind) => {
  describe('the log of a service process', () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(() => store.close());

    it('holds no password, secret, hash or Authorization header, though it logs every request', async () => {
      const service = await startProcess({ DATABASE_URL: store.databaseUrl, LOG_LEVEL: 'trace' });
      const { keySecret } = await exerciseSecrets(service.client);
      await service.stop();
      const log = service.output();
      assert.match(log, /"route":"\/users"/, 'the log did not record the requests');
      assertNoneIn(
        log,
        [PASSWORD, NEW_PASSWORD, REFUSED_PASSWORD, keySecret, keySecret.slice(-43), TEST_ADMIN_KEY, '$argon2'],
        'the log',
      );
      assert.doesNotMatch(log, /authorization/i);
    });
  });

  describe('the database', () => {
    let service: Service;
    before(async () => {
      service = await startService(kind);
    });
    after(() => service.close());

    it('holds no password or credential secret in clear, only their hashes', async () => {
      const { keySecret, email } = await exerciseSecrets(service.client);
      const dump = await service.rawDump();
      assert.ok(dump.includes(email), 'the dump does not show the stored data');
      assert.ok(dump.includes('$argon2id$'), 'the dump does not show the password hash');
      assertNoneIn(
        dump,
        [PASSWORD, NEW_PASSWORD, REFUSED_PASSWORD, keySecret.slice(-43), TEST_ADMIN_KEY],
        'the database',
      );
    });
  });
});
