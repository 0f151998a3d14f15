/**
 * Console sessions: a staff member signs in with email and password and gets a cookie; the
 * session is a credential with the role's scopes; changes need its CSRF token; sign-out, a
 * disabled account and idleness end it for every client; only a hash of it is stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { onlyError, userDocument } from '../../support/fixtures.js';
import { createReader, issueResetToken, resetDocument, signInDocument } from '../../support/readers.js';
import { startService, type Service } from '../../support/service.js';
import {
  ageSessions,
  ageSessionStarts,
  createStaff,
  signInSession,
  staffSignIn,
  STAFF_PASSWORD,
} from '../../support/staff.js';
import { forEachStore } from '../../support/stores.js';

const MAX_ATTEMPTS = 3;

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind, {
      readers: { signIn: { maxAttempts: MAX_ATTEMPTS, windowSeconds: 900 }, resetTokenTtlSeconds: 3600 },
    });
  });
  after(() => service.close());

  describe('POST /staff-sessions', () => {
    it('sets an HttpOnly, SameSite=Strict cookie for the whole site, without Secure over http', async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      const attributes = session.setCookie.split(';').map((part) => part.trim());
      assert.match(attributes[0]!, /^circulation_session=[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(attributes.slice(1).sort(), ['HttpOnly', 'Path=/', 'SameSite=Strict']);
    });

    it('answers the CSRF token and the staff member, and stores only a hash of the session id', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      const current = await session.client.get('/staff-sessions/current');
      assert.equal(current.status, 200, current.text);
      assert.equal(current.body.data.attributes.csrfToken, session.csrfToken);
      assert.equal(current.body.included[0].id, staff.id);
      const sessionId = session.cookie.split('=')[1]!;
      const dump = await service.rawDump();
      assert.ok(!dump.includes(sessionId), 'the session id is stored in clear');
      assert.ok(!dump.includes(session.csrfToken), 'the CSRF token is stored in clear');
    });

    it('answers the same 422 to a wrong password, an unknown email and a disabled account', async () => {
      const staff = await createStaff(service.client, 'agent');
      const wrong = onlyError(await staffSignIn(service.client, staff.email, 'not the password'), 422);
      const unknown = onlyError(await staffSignIn(service.client, 'nobody@staff.example.com', STAFF_PASSWORD), 422);
      await service.client.patch(`/staff/${staff.id}`, {
        data: { type: 'staff', id: staff.id, attributes: { disabled: true } },
      });
      const disabled = onlyError(await staffSignIn(service.client, staff.email, STAFF_PASSWORD), 422);
      assert.deepEqual([wrong.code, unknown.code, disabled.code], Array(3).fill('INVALID_CREDENTIALS'));
      assert.equal(wrong.detail, disabled.detail);
    });

    it('throttles attempts per email with 429 and Retry-After, even with the right password', async () => {
      const staff = await createStaff(service.client, 'agent');
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) await staffSignIn(service.client, staff.email, 'wrong password!');
      const refused = await staffSignIn(service.client, staff.email, STAFF_PASSWORD);
      assert.equal(onlyError(refused, 429).code, 'SIGN_IN_THROTTLED');
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
    });
  });

  describe('a session as a credential', () => {
    it('answers 401 to every API call without a session cookie, or with an unknown one', async () => {
      const anonymous = service.client.as(null);
      for (const path of ['/users', '/staff-sessions/current', '/events']) {
        assert.equal((await anonymous.get(path)).status, 401, path);
      }
      const forged = await anonymous.get('/users', {
        headers: { cookie: `circulation_session=${'A'.repeat(43)}` },
      });
      assert.equal(onlyError(forged, 401).code, 'SESSION_INVALID');
    });

    it("gives an agent the role's scopes: users yes, the catalogue and credentials no", async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      assert.equal((await session.client.post('/users', userDocument())).status, 201);
      const product = { data: { type: 'products', id: `p${Date.now()}`, attributes: { name: 'P' } } };
      assert.equal(onlyError(await session.client.post('/products', product), 403).code, 'SCOPE_INSUFFICIENT');
      assert.equal(onlyError(await session.client.get('/api-keys'), 403).code, 'SCOPE_INSUFFICIENT');
    });

    it("shows an agent no reader's reset token, and lets them neither sign readers in nor reset a password", async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      const reader = await createReader(service.client);
      const issued = await session.client.post(`/users/${reader.id}/password-reset-tokens`, undefined);
      assert.equal(onlyError(issued, 403).code, 'RESET_TOKEN_WITHHELD');
      const signIn = await session.client.post('/sign-ins', signInDocument(reader.email, reader.password));
      assert.equal(onlyError(signIn, 403).code, 'SCOPE_INSUFFICIENT');
      const token = await issueResetToken(service.client, reader.id);
      const reset = await session.client.post('/password-resets', resetDocument(token, 'a new one'));
      assert.equal(onlyError(reset, 403).code, 'SCOPE_INSUFFICIENT');
    });

    it('tells each session whether it may be shown reset tokens: an admin, not an agent or a supervisor', async () => {
      for (const role of ['agent', 'supervisor', 'admin'] as const) {
        const session = await signInSession(service.client, await createStaff(service.client, role));
        const current = await session.client.get('/staff-sessions/current');
        assert.equal(current.status, 200, current.text);
        assert.equal(current.body.meta.resetTokensShown, role === 'admin', role);
      }
    });

    it('lets a supervisor change the catalogue, but not credentials', async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'supervisor'));
      const product = { data: { type: 'products', id: `s${process.pid}`, attributes: { name: 'S' } } };
      assert.equal((await session.client.post('/products', product)).status, 201);
      assert.equal(onlyError(await session.client.get('/api-keys'), 403).code, 'SCOPE_INSUFFICIENT');
    });

    it('records changes in the audit trail under the staff member', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      const created = await session.client.post('/users', userDocument());
      const audit = await service.client.get(
        `/audit-events?filter[resourceType]=users&filter[resourceId]=${created.body.data.id}`,
      );
      assert.equal(audit.body.data[0].attributes.actor, `staff:${staff.id}`);
    });
  });

  describe('CSRF', () => {
    it('refuses a change without the X-CSRF-Token header (a cross-site form POST) with 403', async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      const form = await session.client.request('POST', '/users', {
        csrf: false,
        body: 'data[type]=users',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      });
      assert.equal(onlyError(form, 403).code, 'CSRF_REFUSED');
      const noToken = await session.client.post('/users', userDocument(), { csrf: false });
      assert.equal(onlyError(noToken, 403).code, 'CSRF_REFUSED');
    });

    it("refuses a wrong token, and the right one from another origin; takes it from the service's own", async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      const wrong = await session.client.post('/users', userDocument(), {
        csrf: false,
        headers: { 'x-csrf-token': 'x'.repeat(43) },
      });
      assert.equal(onlyError(wrong, 403).code, 'CSRF_REFUSED');
      const elsewhere = await session.client.post('/users', userDocument(), {
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(onlyError(elsewhere, 403).code, 'CSRF_REFUSED');
      const own = await session.client.post('/users', userDocument(), { headers: { origin: service.baseUrl } });
      assert.equal(own.status, 201, own.text);
    });

    it('needs no token to read', async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      assert.equal((await session.client.request('GET', '/users', { csrf: false })).status, 200);
    });
  });

  describe('ending a session', () => {
    it('signs out: the session is refused afterwards, from any client that holds the cookie', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      const other = await signInSession(service.client, staff);
      const out = await session.client.delete('/staff-sessions/current');
      assert.equal(out.status, 204, out.text);
      assert.match(out.headers.get('set-cookie') ?? '', /^circulation_session=; Max-Age=0/);
      // The same cookie, copied to another browser context: refused there too.
      const copy = service.client.as(null);
      const refused = await copy.get('/users', { headers: { cookie: session.cookie } });
      assert.equal(onlyError(refused, 401).code, 'SESSION_INVALID');
      // The staff member's other session goes on.
      assert.equal((await other.client.get('/users')).status, 200);
    });

    it("refuses a disabled staff member's open sessions on their next request", async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      assert.equal((await session.client.get('/users')).status, 200);
      await service.client.patch(`/staff/${staff.id}`, {
        data: { type: 'staff', id: staff.id, attributes: { disabled: true } },
      });
      assert.equal(onlyError(await session.client.get('/users'), 401).code, 'SESSION_INVALID');
      const [{ n }] = (await service.sql('SELECT count(*) AS n FROM staff_sessions WHERE staff_id = ?', [
        staff.id,
      ])) as [{ n: unknown }];
      assert.equal(Number(n), 0);
    });

    it('ends a session idle for longer than the timeout', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      // As if the last request had been 31 minutes ago.
      await ageSessions(service, staff.id, 1860);
      assert.equal(onlyError(await session.client.get('/users'), 401).code, 'SESSION_INVALID');
    });

    it('keeps a session in use alive: each request moves its last-seen time', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      await ageSessions(service, staff.id, 1700);
      assert.equal((await session.client.get('/users')).status, 200);
      await ageSessions(service, staff.id, 200);
      assert.equal((await session.client.get('/users')).status, 200);
    });

    it('keeps a session in use until CONSOLE_SESSION_MAX_HOURS (12) after it began, and not a second longer', async () => {
      const staff = await createStaff(service.client, 'agent');
      const inside = await signInSession(service.client, staff);
      // Signed in 11 h 59 min ago and used all along: still a minute to go.
      await ageSessionStarts(service, staff.id, 12 * 3600 - 60);
      assert.equal((await inside.client.get('/users')).status, 200);
      // Exactly 12 h after it began (the request in the same second as the sign-in, moved back): ended.
      await ageSessionStarts(service, staff.id, 60);
      assert.equal(onlyError(await inside.client.get('/users'), 401).code, 'SESSION_INVALID');

      const outside = await signInSession(service.client, staff);
      assert.equal((await outside.client.get('/users')).status, 200);
      await ageSessionStarts(service, staff.id, 13 * 3600);
      // Used a moment ago, but begun 13 h ago: no request revives it, changes and reads alike.
      assert.equal(onlyError(await outside.client.get('/staff-sessions/current'), 401).code, 'SESSION_INVALID');
      assert.equal(onlyError(await outside.client.post('/users', userDocument()), 401).code, 'SESSION_INVALID');
      // A new sign-in starts a new session, with its own 12 hours.
      assert.equal((await (await signInSession(service.client, staff)).client.get('/users')).status, 200);
    });
  });
});

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    // Behind a trusted proxy, so that X-Forwarded-For gives each request the client address it names.
    service = await startService(kind, {
      trustProxy: true,
      readers: { signIn: { maxAttempts: MAX_ATTEMPTS, windowSeconds: 900 }, resetTokenTtlSeconds: 3600 },
    });
  });
  after(() => service.close());

  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  const signInFrom = (address: string, email: string, password: string) =>
    service.client
      .as(null)
      .post('/staff-sessions', { data: { type: 'staff-sessions', attributes: { email, password } } }, from(address));

  describe('throttling per email and client network', () => {
    it("locks out the network that guessed, not the staff member's own from elsewhere", async () => {
      const staff = await createStaff(service.client, 'supervisor');
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        assert.equal((await signInFrom('203.0.113.7', staff.email, 'wrong password!')).status, 422);
      }
      const guesser = await signInFrom('203.0.113.7', staff.email, STAFF_PASSWORD);
      assert.equal(onlyError(guesser, 429).code, 'SIGN_IN_THROTTLED');
      assert.ok(Number(guesser.headers.get('retry-after')) > 0);
      const own = await signInFrom('198.51.100.20', staff.email, STAFF_PASSWORD);
      assert.equal(own.status, 201, own.text);
    });

    it("lets a locked-out network's further attempts use up nothing of the email's ceiling", async () => {
      const staff = await createStaff(service.client, 'agent');
      for (let i = 0; i < 10 * MAX_ATTEMPTS + 5; i += 1) {
        await signInFrom('203.0.113.10', staff.email, 'wrong password!');
      }
      assert.equal((await signInFrom('198.51.100.22', staff.email, STAFF_PASSWORD)).status, 201);
    });

    it('counts an IPv6 client by its /64, whichever address in it it uses', async () => {
      const staff = await createStaff(service.client, 'agent');
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        await signInFrom(`2001:db8:1:2::${i + 1}`, staff.email, 'wrong password!');
      }
      const sameNetwork = await signInFrom('2001:db8:1:2:ffff::9', staff.email, STAFF_PASSWORD);
      assert.equal(onlyError(sameNetwork, 429).code, 'SIGN_IN_THROTTLED');
      assert.equal((await signInFrom('2001:db8:1:3::1', staff.email, STAFF_PASSWORD)).status, 201);
    });

    it('refuses every network once the email has had ten times the limit, the right password too', async () => {
      const staff = await createStaff(service.client, 'agent');
      const ceiling = 10 * MAX_ATTEMPTS;
      for (let i = 0; i < ceiling; i += 1) {
        const network = `192.0.2.${Math.floor(i / MAX_ATTEMPTS) + 1}`;
        assert.equal((await signInFrom(network, staff.email, 'wrong password!')).status, 422, `attempt ${i}`);
      }
      for (const network of ['192.0.2.200', '198.51.100.21', '2001:db8:9::1']) {
        const refused = await signInFrom(network, staff.email, STAFF_PASSWORD);
        assert.equal(onlyError(refused, 429).code, 'SIGN_IN_THROTTLED', network);
        assert.ok(Number(refused.headers.get('retry-after')) > 0);
      }
    });

    it("starts a network's count anew on a success there", async () => {
      const staff = await createStaff(service.client, 'agent');
      for (let i = 0; i < MAX_ATTEMPTS - 1; i += 1) await signInFrom('203.0.113.8', staff.email, 'wrong password!');
      assert.equal((await signInFrom('203.0.113.8', staff.email, STAFF_PASSWORD)).status, 201);
      for (let i = 0; i < MAX_ATTEMPTS - 1; i += 1) {
        assert.equal((await signInFrom('203.0.113.8', staff.email, 'wrong password!')).status, 422, `attempt ${i}`);
      }
      assert.equal((await signInFrom('203.0.113.8', staff.email, STAFF_PASSWORD)).status, 201);
    });
  });
});

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind, { publicUrl: 'https://circulation.example' });
  });
  after(() => service.close());

  describe('behind https (PUBLIC_URL https://…)', () => {
    it('names the cookie __Host-circulation_session and marks it Secure', async () => {
      const session = await signInSession(service.client, await createStaff(service.client, 'agent'));
      const attributes = session.setCookie.split(';').map((part) => part.trim());
      assert.match(attributes[0]!, /^__Host-circulation_session=[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(attributes.slice(1).sort(), ['HttpOnly', 'Path=/', 'SameSite=Strict', 'Secure']);
      assert.equal((await session.client.get('/staff-sessions/current')).status, 200);
    });

    it('names the known-device cookie __Host-circulation_device and marks it Secure', async () => {
      const staff = await createStaff(service.client, 'agent');
      const signedIn = await service.client
        .as(null)
        .post('/staff-sessions', {
          data: { type: 'staff-sessions', attributes: { email: staff.email, password: staff.password } },
        });
      const device = signedIn.headers.getSetCookie().find((c) => c.startsWith('__Host-circulation_device='));
      assert.ok(device, String(signedIn.headers.getSetCookie()));
      const attributes = device.split(';').map((part) => part.trim());
      assert.match(attributes[0]!, /^__Host-circulation_device=[A-Za-z0-9_-]{22}\.[0-9]+\.[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(attributes.slice(1).sort(), [
        'HttpOnly',
        'Max-Age=7776000',
        'Path=/',
        'SameSite=Strict',
        'Secure',
      ]);
    });
  });
});
