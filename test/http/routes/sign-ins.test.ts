/**
 * POST /sign-ins: a website backend checks a reader's email and password. A success moves
 * lastSignInAt and records user.signed_in; every failure reads the same; attempts per email are
 * throttled; imported and outdated hashes are replaced by today's argon2id on success.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hash as argon2Hash } from '@node-rs/argon2';
import { hash as bcryptHash } from 'bcrypt';
import { createUser, issueKey, onlyError, uniqueEmail, userDocument } from '../../support/fixtures.js';
import { createReader, INVALID_CREDENTIALS, readerSettings, signIn, signInDocument } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

const MAX_ATTEMPTS = 10;

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const passwordHashOf = async (id: string) =>
    (await service.sql('SELECT password_hash FROM users WHERE id = ?', [id]))[0]?.password_hash as string;

  describe('POST /sign-ins with the right email and password', () => {
    it('answers 201 with the sign-in, related to the user, and the user included', async () => {
      const reader = await createReader(service.client);
      const response = await signIn(service.client, reader.email, reader.password);
      assert.equal(response.status, 201, response.text);
      const { data, included } = response.body;
      assert.equal(data.type, 'sign-ins');
      assert.match(data.id, /^[1-9][0-9]*$/);
      assert.match(data.attributes.signedInAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
      assert.deepEqual(data.relationships, { user: { data: { type: 'users', id: reader.id } } });
      assert.equal(included.length, 1);
      assert.deepEqual([included[0].type, included[0].id], ['users', reader.id]);
      assert.equal(included[0].attributes.email, reader.email);
      assert.equal(included[0].attributes.lastSignInAt, data.attributes.signedInAt);
    });

    it("moves the user's lastSignInAt, null until then, and its ETag", async () => {
      const reader = await createReader(service.client);
      const before = await service.client.get(`/users/${reader.id}`);
      assert.equal(before.body.data.attributes.lastSignInAt, null);
      const signedIn = await signIn(service.client, reader.email, reader.password);
      const after = await service.client.get(`/users/${reader.id}`);
      assert.equal(after.body.data.attributes.lastSignInAt, signedIn.body.data.attributes.signedInAt);
      assert.notEqual(after.headers.get('etag'), before.headers.get('etag'));
    });

    it('records a user.signed_in event, whose id is the sign-in, with no password, hash or address in it', async () => {
      const reader = await createReader(service.client, 'never in the event');
      const signedIn = await signIn(service.client, reader.email, reader.password);
      const events = await service.client.get(`/events?filter[type]=user.signed_in&filter[user]=${reader.id}`);
      assert.equal(events.body.data.length, 1);
      const [event] = events.body.data;
      assert.equal(event.id, signedIn.body.data.id);
      assert.deepEqual(event.attributes, {
        eventType: 'user.signed_in',
        occurredAt: event.attributes.occurredAt,
        userId: reader.id,
        resourceType: 'users',
        resourceId: reader.id,
        changed: [],
        actor: { type: 'credentials', id: 'CIRCULATION_ADMIN_KEY', name: 'CIRCULATION_ADMIN_KEY' },
      });
      const [row] = await service.sql('SELECT * FROM audit_log WHERE id = ?', [event.id]);
      const text = JSON.stringify(row);
      for (const secret of ['never in the event', '$argon2', '127.0.0.1', '::1'])
        assert.ok(!text.includes(secret), secret);
    });

    it('compares the email without regard to letter case', async () => {
      const reader = await createReader(service.client);
      assert.equal((await signIn(service.client, reader.email.toUpperCase(), reader.password)).status, 201);
    });

    it('takes the password typed composed (NFC) or decomposed (NFD) alike', async () => {
      const composed = 'Am\u00e9lie \u00e0 la plage';
      const decomposed = composed.normalize('NFD');
      assert.notEqual(composed, decomposed);
      const nfc = await createReader(service.client, composed);
      assert.equal((await signIn(service.client, nfc.email, decomposed)).status, 201);
      const nfd = await createReader(service.client, decomposed);
      assert.equal((await signIn(service.client, nfd.email, composed)).status, 201);
    });

    it('keeps a hash made today as it is', async () => {
      const reader = await createReader(service.client);
      const hash = await passwordHashOf(reader.id);
      assert.equal((await signIn(service.client, reader.email, reader.password)).status, 201);
      assert.equal(await passwordHashOf(reader.id), hash);
    });
  });

  describe('POST /sign-ins with a hash from another system', () => {
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      it(`verifies a bcrypt ${prefix} hash, then keeps an argon2id hash of today instead`, async () => {
        const email = uniqueEmail();
        const passwordHash = prefix + (await bcryptHash('brought along', 4)).slice(4);
        const id = await createUser(service.client, { email, passwordHash });
        assert.equal(await passwordHashOf(id), passwordHash);
        assert.equal((await signIn(service.client, email, 'brought along')).status, 201);
        assert.match(await passwordHashOf(id), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        assert.equal((await signIn(service.client, email, 'brought along')).status, 201);
      });
    }

    it('replaces an argon2 hash of older parameters the same way', async () => {
      const email = uniqueEmail();
      const passwordHash = await argon2Hash('older parameters', { algorithm: 1, memoryCost: 4096, timeCost: 3 });
      const id = await createUser(service.client, { email, passwordHash });
      assert.equal((await signIn(service.client, email, 'older parameters')).status, 201);
      assert.match(await passwordHashOf(id), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    });

    it('keeps the imported hash when the password is wrong', async () => {
      const email = uniqueEmail();
      const passwordHash = await bcryptHash('brought along', 4);
      const id = await createUser(service.client, { email, passwordHash });
      assert.deepEqual(onlyError(await signIn(service.client, email, 'not it'), 422), INVALID_CREDENTIALS);
      assert.equal(await passwordHashOf(id), passwordHash);
    });

    it('signs in a password shorter than a new one may be, as the other system allowed', async () => {
      const email = uniqueEmail();
      await createUser(service.client, { email, passwordHash: await bcryptHash('short', 4) });
      assert.equal((await signIn(service.client, email, 'short')).status, 201);
    });
  });

  describe('POST /sign-ins that fails', () => {
    it('answers the same one 422, without a source, for a wrong password, an unknown email and a reader without one', async () => {
      const reader = await createReader(service.client);
      const withoutPassword = uniqueEmail();
      await createUser(service.client, { email: withoutPassword });
      const answers = [
        await signIn(service.client, reader.email, 'a wrong password'),
        await signIn(service.client, uniqueEmail(), 'a wrong password'),
        await signIn(service.client, withoutPassword, 'a wrong password'),
      ];
      for (const answer of answers) assert.deepEqual(onlyError(answer, 422), INVALID_CREDENTIALS);
      assert.deepEqual(
        answers.map((a) => a.text),
        answers.map(() => answers[0]!.text),
      );
    });

    it('leaves lastSignInAt alone and records no event', async () => {
      const reader = await createReader(service.client);
      await signIn(service.client, reader.email, 'a wrong password');
      assert.equal((await service.client.get(`/users/${reader.id}`)).body.data.attributes.lastSignInAt, null);
      const events = await service.client.get(`/events?filter[type]=user.signed_in&filter[user]=${reader.id}`);
      assert.deepEqual(events.body.data, []);
    });
  });

  describe('POST /sign-ins, throttled', () => {
    const fail = (email: string) => signIn(service.client, email, 'a wrong password');

    for (const [what, make] of [
      ['an existing email', async () => (await createReader(service.client)).email],
      ['an unknown email', async () => uniqueEmail()],
    ] as const) {
      it(`answers 429 with Retry-After after ${MAX_ATTEMPTS} failed attempts for ${what}`, async () => {
        const email = await make();
        for (let i = 0; i < MAX_ATTEMPTS; i += 1) assert.equal((await fail(email)).status, 422, `attempt ${i + 1}`);
        const refused = await fail(email);
        const error = onlyError(refused, 429);
        assert.deepEqual([error.code, error.title], ['SIGN_IN_THROTTLED', 'Too Many Requests']);
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter > 890 && retryAfter <= 900, String(retryAfter));
        assert.equal(error.source, undefined);
      });
    }

    it('answers an unknown and an existing email in the same words', async () => {
      const known = (await createReader(service.client)).email;
      const unknown = uniqueEmail();
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) await Promise.all([fail(known), fail(unknown)]);
      const [a, b] = await Promise.all([fail(known), fail(unknown)]);
      assert.equal(a.status, 429);
      // Each email's window starts at its own first attempt, which may fall a second apart.
      const words = (text: string) => text.replace(/retry in \d+ s/, 'retry in N s');
      assert.equal(words(a.text), words(b.text));
      assert.ok(Math.abs(Number(a.headers.get('retry-after')) - Number(b.headers.get('retry-after'))) <= 1);
    });

    it('starts counting anew after a success', async () => {
      const reader = await createReader(service.client);
      for (let i = 0; i < MAX_ATTEMPTS - 1; i += 1) await fail(reader.email);
      assert.equal((await signIn(service.client, reader.email, reader.password)).status, 201);
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) assert.equal((await fail(reader.email)).status, 422);
      assert.equal((await fail(reader.email)).status, 429);
    });

    it('throttles one email without touching another', async () => {
      const throttled = uniqueEmail();
      for (let i = 0; i <= MAX_ATTEMPTS; i += 1) await fail(throttled);
      const reader = await createReader(service.client);
      assert.equal((await signIn(service.client, reader.email, reader.password)).status, 201);
    });

    it('counts attempts sent at once, letting no more than the limit through', async () => {
      const email = uniqueEmail();
      const answers = await Promise.all(Array.from({ length: 2 * MAX_ATTEMPTS }, () => fail(email)));
      assert.deepEqual(answers.map((a) => a.status).sort(), [
        ...Array(MAX_ATTEMPTS).fill(422),
        ...Array(MAX_ATTEMPTS).fill(429),
      ]);
    });

    it('forgets the attempts of an erased reader with them', async () => {
      const reader = await createReader(service.client);
      await fail(reader.email);
      assert.equal(
        (await service.sql('SELECT * FROM sign_in_attempts WHERE email_lower = ?', [reader.email])).length,
        1,
      );
      assert.equal((await service.client.delete(`/users/${reader.id}`)).status, 204);
      assert.deepEqual(await service.sql('SELECT * FROM sign_in_attempts WHERE email_lower = ?', [reader.email]), []);
    });

    it("forgets the attempts counted for a reader's former address when it changes, so erasure leaves none", async () => {
      const reader = await createReader(service.client);
      await fail(reader.email);
      const moved = uniqueEmail();
      const patched = await service.client.patch(`/users/${reader.id}`, {
        data: { type: 'users', id: reader.id, attributes: { email: moved } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(await service.sql('SELECT * FROM sign_in_attempts WHERE email_lower = ?', [reader.email]), []);
      await fail(moved);
      assert.equal((await service.client.delete(`/users/${reader.id}`)).status, 204);
      assert.deepEqual(
        await service.sql('SELECT * FROM sign_in_attempts WHERE email_lower IN (?, ?)', [reader.email, moved]),
        [],
      );
    });

    it('keeps the attempts of an address whose case alone changes: it is the same address', async () => {
      const reader = await createReader(service.client);
      await fail(reader.email);
      const patched = await service.client.patch(`/users/${reader.id}`, {
        data: { type: 'users', id: reader.id, attributes: { email: reader.email.toUpperCase() } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(
        (await service.sql('SELECT * FROM sign_in_attempts WHERE email_lower = ?', [reader.email])).length,
        1,
      );
    });
  });

  describe('POST /sign-ins, throttled in a window of 2 seconds', () => {
    let short: Service;
    before(async () => {
      short = await startService(kind, readerSettings({ maxAttempts: 2, windowSeconds: 2 }));
    });
    after(() => short.close());

    it('refuses even the right password until the window has passed, then signs in', async () => {
      const reader = await createReader(short.client);
      for (let i = 0; i < 2; i += 1) await signIn(short.client, reader.email, 'a wrong password');
      onlyError(await signIn(short.client, reader.email, reader.password), 429);
      const refused = await signIn(short.client, reader.email.toUpperCase(), reader.password);
      onlyError(refused, 429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 2, String(retryAfter));
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      assert.equal((await signIn(short.client, reader.email, reader.password)).status, 201);
    });
  });

  describe('POST /sign-ins with a hostile body', () => {
    const hostile: [string, unknown][] = [
      ['no attributes', { data: { type: 'sign-ins' } }],
      ['no email', { data: { type: 'sign-ins', attributes: { password: 'x' } } }],
      ['no password', { data: { type: 'sign-ins', attributes: { email: 'a@example.com' } } }],
      ['a numeric password', signInDocument('a@example.com', 12345678)],
      ['a null password', signInDocument('a@example.com', null)],
      ['an array as email', signInDocument(['a@example.com'], 'x')],
      ['an object as password', signInDocument('a@example.com', { $gt: '' })],
      ['an empty password', signInDocument('a@example.com', '')],
      ['a password of 1,025 characters', signInDocument('a@example.com', 'p'.repeat(1025))],
      ['an email that is not one', signInDocument('not an email', 'x')],
      ['a NUL in the password', signInDocument('a@example.com', 'pass\u0000word')],
      ['a NUL in the email', signInDocument('a\u0000@example.com', 'with a NUL in the email')],
      ['an unpaired surrogate', signInDocument('a@example.com', 'pass\ud800word')],
      [
        'an unknown attribute',
        { data: { type: 'sign-ins', attributes: { email: 'a@example.com', password: 'x', remember: true } } },
      ],
      ['a client id', { data: { type: 'sign-ins', id: '1', attributes: { email: 'a@example.com', password: 'x' } } }],
      ['another type', { data: { type: 'users', attributes: { email: 'a@example.com', password: 'x' } } }],
      ['an array', '[]'],
      ['not JSON', '{"data":'],
      ['a 10 MB password', signInDocument('a@example.com', 'p'.repeat(10 * 1024 * 1024))],
    ];
    for (const [what, body] of hostile) {
      it(`answers ${what} with a 4xx JSON:API error`, async () => {
        const response = await service.client.post('/sign-ins', body);
        assert.ok(
          response.status >= 400 && response.status < 500,
          `${response.status}: ${response.text.slice(0, 300)}`,
        );
        assert.ok(response.body.errors.length >= 1);
      });
    }

    it('points at the attribute that is wrong', async () => {
      const error = onlyError(await service.client.post('/sign-ins', signInDocument('a@example.com', 42)), 422);
      assert.deepEqual([error.source, error.detail], [{ pointer: '/data/attributes/password' }, 'must be a string']);
    });

    it('answers a body over 1 MiB with 413', async () => {
      onlyError(await service.client.post('/sign-ins', signInDocument('a@example.com', 'p'.repeat(2 ** 20))), 413);
    });

    it('refuses an Idempotency-Key with 400: the body carries a password, which is never kept', async () => {
      const reader = await createReader(service.client);
      const response = await service.client.post('/sign-ins', signInDocument(reader.email, reader.password), {
        headers: { 'idempotency-key': 'sign-in-1' },
      });
      const error = onlyError(response, 400);
      assert.deepEqual(error.source, { header: 'Idempotency-Key' });
      assert.deepEqual(await service.sql('SELECT * FROM idempotency_keys'), []);
    });

    it('is refused with 422 before any attempt is counted when the body is wrong', async () => {
      const email = uniqueEmail();
      for (let i = 0; i < MAX_ATTEMPTS + 2; i += 1) {
        await service.client.post('/sign-ins', signInDocument(email, 42));
      }
      assert.deepEqual(await service.sql('SELECT * FROM sign_in_attempts WHERE email_lower = ?', [email]), []);
    });
  });

  describe('POST /sign-ins, by credential', () => {
    it('answers 403 to a write credential, which would otherwise test passwords and move lastSignInAt', async () => {
      const writer = service.client.as((await issueKey(service.client, ['write'])).secret);
      const reader = await createReader(service.client);
      const error = onlyError(await signIn(writer, reader.email, reader.password), 403);
      assert.equal(error.code, 'SCOPE_INSUFFICIENT');
      assert.equal((await service.client.get(`/users/${reader.id}`)).body.data.attributes.lastSignInAt, null);
    });

    it('signs in with a sign-in or an admin credential', async () => {
      const reader = await createReader(service.client);
      for (const scope of ['sign-in', 'admin'] as const) {
        const client = service.client.as((await issueKey(service.client, [scope])).secret);
        assert.equal((await signIn(client, reader.email, reader.password)).status, 201, scope);
      }
    });
  });

  describe('the user attribute lastSignInAt', () => {
    it('is read-only: sending it is a 422 naming it', async () => {
      const error = onlyError(
        await service.client.post('/users', userDocument({ lastSignInAt: '2025-01-01T00:00:00+00:00' })),
        422,
      );
      assert.deepEqual(error.source, { pointer: '/data/attributes/lastSignInAt' });
    });

    it('is in the list, and may be asked for alone in a sparse fieldset', async () => {
      const reader = await createReader(service.client);
      await signIn(service.client, reader.email, reader.password);
      const response = await service.client.get(
        `/users?filter[email]=${encodeURIComponent(reader.email)}&fields[users]=lastSignInAt`,
      );
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(Object.keys(response.body.data[0].attributes), ['lastSignInAt']);
      assert.match(response.body.data[0].attributes.lastSignInAt, /^\d{4}-/);
    });
  });
});
