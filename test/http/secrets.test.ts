/**
 * Secrets stay secret: no password (a reader's or a staff member's, set, changed or guessed),
 * credential secret, reset token, hash or Authorization header in any log line of a real service
 * process, and no password, secret or token in clear anywhere in the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hash as bcryptHash } from 'bcrypt';
import { issueKey, uniqueEmail, userDocument } from '../support/fixtures.js';
import { issueResetToken, resetDocument, signIn } from '../support/readers.js';
import { startProcess } from '../support/process.js';
import { startService, TEST_ADMIN_KEY, type Service } from '../support/service.js';
import { createStaff, signInSession, STAFF_PASSWORD } from '../support/staff.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

const PASSWORD = 'first-password-f00d1e';
const NEW_PASSWORD = 'second-password-c0ffee';
const REFUSED_PASSWORD = `refused-password-${'z'.repeat(300)}`;
const WRONG_PASSWORD = 'wrong-password-0ddba11';
const RESET_PASSWORD = 'reset-password-5ca1ab1e';
const IMPORTED_PASSWORD = 'imported-password-b4dc0de';
const STAFF_CHANGED_PASSWORD = 'staff-changed-password-fee1900d';
const STAFF_WRONG_PASSWORD = 'staff-wrong-password-deadbeef';
const STAFF_SET_PASSWORD = 'staff-set-password-abad1dea';
/** Every password the requests below send. */
const PASSWORDS = [
  PASSWORD,
  NEW_PASSWORD,
  REFUSED_PASSWORD,
  WRONG_PASSWORD,
  RESET_PASSWORD,
  IMPORTED_PASSWORD,
  STAFF_PASSWORD,
  STAFF_CHANGED_PASSWORD,
  STAFF_WRONG_PASSWORD,
  STAFF_SET_PASSWORD,
];

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

  // A reader signing in, failing to, resetting the password; another brought with a bcrypt hash.
  const email = created.body.data.attributes.email as string;
  assert.equal((await signIn(client, email, NEW_PASSWORD)).status, 201);
  assert.equal((await signIn(client, email, WRONG_PASSWORD)).status, 422);
  const token = await issueResetToken(client, id);
  assert.equal((await client.post('/password-resets', resetDocument(token, RESET_PASSWORD))).status, 204);
  assert.equal((await client.post('/password-resets', resetDocument(token, RESET_PASSWORD))).status, 422);
  const importedHash = await bcryptHash(IMPORTED_PASSWORD, 4);
  const imported = await client.post('/users', userDocument({ passwordHash: importedHash }));
  assert.equal(imported.status, 201, imported.text);
  assert.equal((await signIn(client, imported.body.data.attributes.email, IMPORTED_PASSWORD)).status, 201);

  // A staff member changing their password (once with a wrong current one), and an admin setting it.
  const staff = await createStaff(client, 'agent');
  const session = await signInSession(client, staff);
  const change = (currentPassword: string, password: string) =>
    session.client.patch(`/staff/${staff.id}`, {
      data: { type: 'staff', id: staff.id, attributes: { password, currentPassword } },
    });
  assert.equal((await change(STAFF_WRONG_PASSWORD, STAFF_CHANGED_PASSWORD)).status, 422);
  assert.equal((await change(STAFF_PASSWORD, STAFF_CHANGED_PASSWORD)).status, 200);
  const set = await client.patch(`/staff/${staff.id}`, {
    data: { type: 'staff', id: staff.id, attributes: { password: STAFF_SET_PASSWORD } },
  });
  assert.equal(set.status, 200, set.text);
  return { userId: id, keySecret: key.secret, email, token, importedHash };
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
      const { keySecret, token, importedHash } = await exerciseSecrets(service.client);
      await service.stop();
      const log = service.output();
      assert.match(log, /"route":"\/users"/, 'the log did not record the requests');
      assert.match(log, /"route":"\/sign-ins"/, 'the log did not record the sign-ins');
      assertNoneIn(
        log,
        [
          ...PASSWORDS,
          keySecret,
          keySecret.slice(-43),
          TEST_ADMIN_KEY,
          token,
          token.slice(-43),
          importedHash,
          '$argon2',
          '$2b$',
        ],
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
      const { keySecret, email, token } = await exerciseSecrets(service.client);
      const dump = await service.rawDump();
      assert.ok(dump.includes(email), 'the dump does not show the stored data');
      assert.ok(dump.includes('$argon2id$'), 'the dump does not show the password hash');
      assertNoneIn(dump, [...PASSWORDS, keySecret.slice(-43), TEST_ADMIN_KEY, token.slice(-43)], 'the database');
    });
  });
});
