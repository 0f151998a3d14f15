/**
 * Password resets: a token issued for a reader (shown once, kept as a hash, valid for a while; in
 * the answer, without mail, only to admin and reset-tokens credentials), then used once by the
 * website backend to set a new password. A token is refused at its pointer
 * when it is used, expired, unknown or malformed, and voided by any change of the password or
 * of the email it was mailed to.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newResetToken } from '../../../src/domain/password-reset.js';
import { createUser, issueKey, onlyError, uniqueEmail } from '../../support/fixtures.js';
import { createReader, issueResetToken, readerSettings, resetDocument, signIn } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

const NEW_PASSWORD = 'a brand new passphrase';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const reset = (token: unknown, password: unknown = NEW_PASSWORD) =>
    service.client.post('/password-resets', resetDocument(token, password));

  const assertTokenRefused = (response: Awaited<ReturnType<typeof reset>>) => {
    const error = onlyError(response, 422);
    assert.deepEqual(
      [error.code, error.title, error.detail, error.source],
      [
        'RESET_TOKEN_INVALID',
        'Invalid Attribute',
        'is invalid, used or expired',
        { pointer: '/data/attributes/token' },
      ],
    );
  };

  describe('POST /users/{id}/password-reset-tokens', () => {
    it('answers 201 with the token once in meta.token, valid for an hour by default', async () => {
      const reader = await createReader(service.client);
      const response = await service.client.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      assert.equal(response.status, 201, response.text);
      const { data, meta } = response.body;
      assert.equal(data.type, 'password-reset-tokens');
      assert.deepEqual(data.relationships, { user: { data: { type: 'users', id: reader.id } } });
      const { createdAt, expiresAt } = data.attributes;
      assert.equal(Date.parse(expiresAt) - Date.parse(createdAt), 3600 * 1000);
      assert.match(meta.token, new RegExp(`^prt_${reader.id}_[A-Za-z0-9_-]{43}$`));
    });

    it('keeps only a hash of the token, and records who issued it', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      assert.ok(!(await service.rawDump()).includes(token.slice(-43)), 'the token is in the database');
      const trail = await service.client.get(`/audit-events?filter[resourceType]=password-reset-tokens`);
      const entry = trail.body.data.find((e: any) => e.attributes.userId === reader.id);
      assert.ok(entry, trail.text);
      assert.equal(entry.attributes.action, 'create');
    });

    it('answers 404 for a user that does not exist', async () => {
      onlyError(await service.client.post('/users/987654321/password-reset-tokens', undefined), 404);
    });

    it('shows no token to a write credential (an agent, a CRM): 403 RESET_TOKEN_WITHHELD, and issues none', async () => {
      const writer = service.client.as((await issueKey(service.client, ['write'])).secret);
      const reader = await createReader(service.client);
      const refused = await writer.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      const error = onlyError(refused, 403);
      assert.equal(error.code, 'RESET_TOKEN_WITHHELD');
      assert.deepEqual(error.source, { pointer: '/data/attributes/delivery' });
      assert.match(error.detail, /admin credential or one with the reset-tokens scope/);
      assert.ok(!refused.text.includes('prt_'));
      const trail = await service.client.get(`/audit-events?filter[resourceType]=password-reset-tokens`);
      assert.ok(!trail.body.data.some((e: any) => e.attributes.userId === reader.id), 'a token was issued');
    });

    it('shows the token to a reset-tokens credential without mail, which can do nothing else', async () => {
      const mailer = service.client.as((await issueKey(service.client, ['reset-tokens'])).secret);
      const reader = await createReader(service.client);
      const token = await issueResetToken(mailer, reader.id);
      assert.equal((await reset(token)).status, 204);
      assert.equal(onlyError(await mailer.get(`/users/${reader.id}`), 403).code, 'SCOPE_INSUFFICIENT');
      assert.equal(
        onlyError(await mailer.post('/password-resets', resetDocument(token, NEW_PASSWORD)), 403).code,
        'SCOPE_INSUFFICIENT',
      );
    });

    it('answers 403 SCOPE_INSUFFICIENT to read and sign-in credentials', async () => {
      const reader = await createReader(service.client);
      for (const scope of ['read', 'sign-in'] as const) {
        const other = service.client.as((await issueKey(service.client, [scope])).secret);
        const error = onlyError(await other.post(`/users/${reader.id}/password-reset-tokens`, undefined), 403);
        assert.equal(error.code, 'SCOPE_INSUFFICIENT', scope);
      }
    });

    it('refuses an Idempotency-Key with 400: the answer shows a secret once', async () => {
      const reader = await createReader(service.client);
      const response = await service.client.post(`/users/${reader.id}/password-reset-tokens`, undefined, {
        headers: { 'idempotency-key': 'reset-token-1' },
      });
      assert.deepEqual(onlyError(response, 400).source, { header: 'Idempotency-Key' });
    });
  });

  describe('POST /password-resets', () => {
    it('sets the new password: 204, the new one signs in, the old one no longer', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      const response = await reset(token);
      assert.equal(response.status, 204, response.text);
      assert.equal(response.text, '');
      assert.equal((await signIn(service.client, reader.email, NEW_PASSWORD)).status, 201);
      onlyError(await signIn(service.client, reader.email, reader.password), 422);
    });

    it('sets a password for a reader who had none', async () => {
      const email = uniqueEmail();
      const id = await createUser(service.client, { email });
      assert.equal((await reset(await issueResetToken(service.client, id))).status, 204);
      assert.equal((await signIn(service.client, email, NEW_PASSWORD)).status, 201);
    });

    it('records the change as user.updated naming the password, never its value', async () => {
      const reader = await createReader(service.client);
      await reset(await issueResetToken(service.client, reader.id));
      const events = await service.client.get(`/events?filter[type]=user.updated&filter[user]=${reader.id}`);
      assert.deepEqual(
        events.body.data.map((e: any) => e.attributes.changed),
        [['password']],
      );
      assert.ok(!events.text.includes(NEW_PASSWORD));
    });

    it('refuses a token used before, at /data/attributes/token', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      assert.equal((await reset(token)).status, 204);
      assertTokenRefused(await reset(token, 'yet another passphrase'));
    });

    it('refuses an unknown token, a malformed one, and one naming another user', async () => {
      const reader = await createReader(service.client);
      const other = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      for (const wrong of [
        newResetToken(reader.id).token,
        'not a token',
        '',
        token.slice(0, -1),
        token.replace(`prt_${reader.id}_`, `prt_${other.id}_`),
        'prt_1_' + 'x'.repeat(250),
      ]) {
        assertTokenRefused(await reset(wrong));
      }
      assert.equal((await reset(token)).status, 204);
    });

    it('voids every outstanding token once the password changes by any route', async () => {
      const reader = await createReader(service.client);
      const [first, second, third] = [
        await issueResetToken(service.client, reader.id),
        await issueResetToken(service.client, reader.id),
        await issueResetToken(service.client, reader.id),
      ];
      assert.equal((await reset(first)).status, 204);
      assertTokenRefused(await reset(second));
      const fourth = await issueResetToken(service.client, reader.id);
      const changed = await service.client.patch(`/users/${reader.id}`, {
        data: { type: 'users', id: reader.id, attributes: { password: 'changed by the crm' } },
      });
      assert.equal(changed.status, 200, changed.text);
      assertTokenRefused(await reset(third));
      assertTokenRefused(await reset(fourth));
    });

    for (const method of ['PATCH', 'PUT'] as const) {
      it(`voids every outstanding token once ${method} changes the email; one issued after works`, async () => {
        const reader = await createReader(service.client);
        const [first, second] = [
          await issueResetToken(service.client, reader.id),
          await issueResetToken(service.client, reader.id),
        ];
        const changed = await service.client.request(method, `/users/${reader.id}`, {
          body: { data: { type: 'users', id: reader.id, attributes: { email: uniqueEmail('elsewhere.example') } } },
        });
        assert.ok(changed.status === 200 || changed.status === 204, changed.text);
        assertTokenRefused(await reset(first));
        assertTokenRefused(await reset(second));
        assert.equal((await reset(await issueResetToken(service.client, reader.id))).status, 204);
      });
    }

    it('keeps outstanding tokens when only the letter case of the email changes: it is the same address', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      const changed = await service.client.patch(`/users/${reader.id}`, {
        data: { type: 'users', id: reader.id, attributes: { email: reader.email.toUpperCase() } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal((await reset(token)).status, 204);
    });

    it('keeps outstanding tokens through changes that leave the password alone', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      await service.client.put(`/users/${reader.id}`, {
        data: { type: 'users', id: reader.id, attributes: { givenName: 'Unchanged password' } },
      });
      await signIn(service.client, reader.email, reader.password);
      assert.equal((await reset(token)).status, 204);
    });

    it('refuses a common or short password at /data/attributes/password, keeping the token', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      const common = onlyError(await reset(token, 'iloveyou'), 422);
      assert.deepEqual([common.source, common.detail], [{ pointer: '/data/attributes/password' }, 'is too common']);
      const short = onlyError(await reset(token, 'short'), 422);
      assert.deepEqual(short.source, { pointer: '/data/attributes/password' });
      assert.equal((await reset(token)).status, 204);
    });

    it('lifts the sign-in throttle of the reader', async () => {
      const reader = await createReader(service.client);
      for (let i = 0; i < 11; i += 1) await signIn(service.client, reader.email, 'a wrong password');
      onlyError(await signIn(service.client, reader.email, reader.password), 429);
      assert.equal((await reset(await issueResetToken(service.client, reader.id))).status, 204);
      assert.equal((await signIn(service.client, reader.email, NEW_PASSWORD)).status, 201);
    });

    it('lets only one of two uses of a token at once through', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      const answers = await Promise.all([reset(token, 'first of two at once'), reset(token, 'second of two at once')]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [204, 422]);
    });

    it('refuses an Idempotency-Key with 400: the body carries a token and a password', async () => {
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      const response = await service.client.post('/password-resets', resetDocument(token, NEW_PASSWORD), {
        headers: { 'idempotency-key': 'reset-1' },
      });
      assert.deepEqual(onlyError(response, 400).source, { header: 'Idempotency-Key' });
      assert.equal((await reset(token)).status, 204);
    });

    it('answers hostile bodies with a 4xx, never a 5xx', async () => {
      for (const body of [
        { data: { type: 'password-resets' } },
        resetDocument(null, NEW_PASSWORD),
        resetDocument(['prt_1_x'], NEW_PASSWORD),
        resetDocument('prt_1_x', 12345678),
        resetDocument('prt_\u0000', NEW_PASSWORD),
        { data: { type: 'password-resets', id: '1', attributes: { token: 'x', password: NEW_PASSWORD } } },
        resetDocument('x', 'p'.repeat(2 ** 20)),
      ]) {
        const response = await service.client.post('/password-resets', body);
        assert.ok(
          response.status >= 400 && response.status < 500,
          `${response.status}: ${response.text.slice(0, 200)}`,
        );
      }
    });

    it('answers 403 to a write credential, which is never shown a token and does not use one', async () => {
      const writer = service.client.as((await issueKey(service.client, ['write'])).secret);
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      assert.equal(
        onlyError(await writer.post('/password-resets', resetDocument(token, NEW_PASSWORD)), 403).code,
        'SCOPE_INSUFFICIENT',
      );
      assert.equal((await reset(token)).status, 204);
    });

    it('is open to a sign-in credential, which cannot issue tokens', async () => {
      const site = (await issueKey(service.client, ['sign-in'])).secret;
      const reader = await createReader(service.client);
      const token = await issueResetToken(service.client, reader.id);
      assert.equal(
        (await service.client.as(site).post('/password-resets', resetDocument(token, NEW_PASSWORD))).status,
        204,
      );
    });
  });

  describe('password reset tokens, expiring', () => {
    let short: Service;
    before(async () => {
      short = await startService(kind, readerSettings({ resetTokenTtlSeconds: 1 }));
    });
    after(() => short.close());

    it('are valid for PASSWORD_RESET_TTL_MINUTES and refused once expired', async () => {
      const reader = await createReader(short.client);
      const issued = await short.client.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      const { createdAt, expiresAt } = issued.body.data.attributes;
      assert.equal(Date.parse(expiresAt) - Date.parse(createdAt), 1000);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const error = onlyError(
        await short.client.post('/password-resets', resetDocument(issued.body.meta.token, NEW_PASSWORD)),
        422,
      );
      assert.deepEqual(error.source, { pointer: '/data/attributes/token' });
    });
  });
});
