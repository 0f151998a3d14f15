/**
 * Idempotency-Key: a retried POST or expire runs once, whichever answer the client missed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  createSubscription,
  createUser,
  issueKey,
  onlyError,
  subscriptionDocument,
  uniqueEmail,
  userDocument,
} from '../../support/fixtures.js';
import { REQUEST_DEADLINE_MS } from '../../../src/http/plugins/hardening.js';
import { staleAfterSeconds } from '../../../src/http/plugins/idempotency.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  let counter = 0;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
  const freshKey = () => `key-${kind}-${Date.now()}-${(counter += 1)}`;
  const userCount = async () =>
    Number(((await service.sql('SELECT count(*) AS n FROM users')) as [{ n: number }])[0].n);

  describe('Idempotency-Key', () => {
    it('answers a retried create with the first response, creating one user', async () => {
      const key = freshKey();
      const document = userDocument({ password: 'a retried password' });
      const first = await service.client.post('/users', document, withKey(key));
      assert.equal(first.status, 201, first.text);
      const before = await userCount();
      const retry = await service.client.post('/users', document, withKey(key));
      assert.equal(retry.status, 201);
      assert.deepEqual(retry.body, first.body);
      assert.equal(retry.headers.get('location'), first.headers.get('location'));
      assert.equal(retry.headers.get('etag'), first.headers.get('etag'));
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(await userCount(), before);
    });

    it('keeps the key in the database, where any process finds it', async () => {
      const key = freshKey();
      await service.client.post('/users', userDocument(), withKey(key));
      const rows = await service.sql('SELECT status FROM idempotency_keys WHERE key = ?', [key]);
      assert.deepEqual(
        rows.map((r) => Number(r.status)),
        [201],
      );
    });

    it('replays a refusal too: the same invalid request gets the same 422', async () => {
      const key = freshKey();
      const bad = userDocument({ email: 'not-an-address' });
      const first = await service.client.post('/users', bad, withKey(key));
      const retry = await service.client.post('/users', bad, withKey(key));
      assert.equal(first.status, 422);
      assert.deepEqual(retry.body, first.body);
    });

    it('refuses the same key with a different request with 422', async () => {
      const key = freshKey();
      await service.client.post('/users', userDocument(), withKey(key));
      const error = onlyError(await service.client.post('/users', userDocument(), withKey(key)), 422);
      assert.deepEqual(error.source, { header: 'Idempotency-Key' });
    });

    it('answers 409 to the same key while the first request is still running', async () => {
      const key = freshKey();
      const document = userDocument();
      // Hold the first request in the store long enough for the retry to arrive meanwhile.
      const create = service.store.users.create;
      service.store.users.create = async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return create(...args);
      };
      try {
        const first = service.client.post('/users', document, withKey(key));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const error = onlyError(await service.client.post('/users', document, withKey(key)), 409);
        assert.deepEqual(error.source, { header: 'Idempotency-Key' });
        assert.equal((await first).status, 201);
      } finally {
        service.store.users.create = create;
      }
    });

    it('makes expire safe to retry, and keeps keys apart per credential', async () => {
      const userId = await createUser(service.client);
      const id = await createSubscription(service.client, userId);
      const key = freshKey();
      const first = await service.client.put(`/users/${userId}/subscriptions/${id}/expire`, undefined, withKey(key));
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const retry = await service.client.put(`/users/${userId}/subscriptions/${id}/expire`, undefined, withKey(key));
      assert.deepEqual(retry.body, first.body);
      const other = service.client.as((await issueKey(service.client, ['write'])).secret);
      const theirs = await other.post(`/users/${userId}/subscriptions`, subscriptionDocument(), withKey(key));
      assert.equal(theirs.status, 201, theirs.text);
    });

    it('keeps a fingerprint that the request alone cannot recompute: an HMAC under a key not in the database', async () => {
      const key = freshKey();
      const document = userDocument({ password: 'a guessable password' });
      assert.equal((await service.client.post('/users', document, withKey(key))).status, 201);
      const [row] = await service.sql('SELECT fingerprint FROM idempotency_keys WHERE key = ?', [key]);
      // What whoever holds a copy of the database could compute to test a password guess.
      const guess = createHash('sha256')
        .update(`POST /users\n${JSON.stringify(document)}`)
        .digest('hex');
      assert.notEqual(row?.fingerprint, guess);
      assert.match(String(row?.fingerprint), /^[0-9a-f]{64}$/);
    });

    it('lets no password into a stored fingerprint: requests that differ only in it fingerprint alike', async () => {
      const key = freshKey();
      const document = userDocument({ password: 'the first password' });
      const created = await service.client.post('/users', document, withKey(key));
      assert.equal(created.status, 201, created.text);
      // The same request but for its password: the same fingerprint, so the first answer, not a key reused.
      const other = userDocument({ email: document.data.attributes.email, password: 'a second password' });
      const retried = await service.client.post('/users', other, withKey(key));
      assert.equal(retried.status, 201, retried.text);
      assert.equal(retried.headers.get('idempotent-replayed'), 'true');
      const rows = await service.sql('SELECT fingerprint FROM idempotency_keys WHERE key = ?', [key]);
      assert.equal(rows.length, 1);
    });

    it('forgets the kept response of a reader who is erased: a retry runs anew, replaying nothing of them', async () => {
      const key = freshKey();
      const document = userDocument({ internalNotes: 'kept until erased' });
      const created = await service.client.post('/users', document, withKey(key));
      assert.equal(created.status, 201);
      const id = created.body.data.id;
      assert.deepEqual(
        (await service.sql('SELECT user_id FROM idempotency_keys WHERE key = ?', [key])).map((r) => String(r.user_id)),
        [id],
      );
      assert.equal((await service.client.delete(`/users/${id}`)).status, 204);
      assert.deepEqual(await service.sql('SELECT * FROM idempotency_keys WHERE key = ?', [key]), []);
      const retry = await service.client.post('/users', document, withKey(key));
      assert.equal(retry.headers.get('idempotent-replayed'), null);
      assert.notEqual(retry.body.data.id, id);
    });

    it("keeps no answer that another reader's email is taken: once they are erased, a retry creates the reader", async () => {
      const email = uniqueEmail();
      const holder = await createUser(service.client, { email });
      const key = freshKey();
      const document = userDocument({ email });
      const taken = await service.client.post('/users', document, withKey(key));
      assert.equal(onlyError(taken, 422).code, 'EMAIL_TAKEN');
      assert.equal((await service.client.delete(`/users/${holder}`)).status, 204);
      const retry = await service.client.post('/users', document, withKey(key));
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), null);
      const again = await service.client.post('/users', document, withKey(key));
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.body.data.id, retry.body.data.id);
    });

    it("ties a subscription's kept response to its reader, and erasing them takes it", async () => {
      const userId = await createUser(service.client);
      const key = freshKey();
      const created = await service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument(), withKey(key));
      assert.equal(created.status, 201);
      assert.equal((await service.client.delete(`/users/${userId}`)).status, 204);
      assert.deepEqual(await service.sql('SELECT * FROM idempotency_keys WHERE key = ?', [key]), []);
    });

    it("hands a claim on to a retry only after its request's deadline and its store calls are past", () => {
      for (const bound of [1000, 7000, 60_000, 600_000]) {
        assert.ok(staleAfterSeconds(bound) * 1000 >= REQUEST_DEADLINE_MS + 3 * bound, `for ${bound} ms`);
      }
      assert.equal(staleAfterSeconds(1000), 60);
    });

    it('refuses a key that is not 1 to 255 printable characters with 400', async () => {
      const error = onlyError(await service.client.post('/users', userDocument(), withKey('has spaces in it')), 400);
      assert.deepEqual(error.source, { header: 'Idempotency-Key' });
    });
  });
});
