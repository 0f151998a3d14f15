/**
 * Staff passwords change with PATCH /staff/{id}: a staff member their own, with currentPassword
 * (verified, and counted with their console sign-ins), which ends their other sessions; an admin
 * anyone's, without it, which ends all of that account's sessions. Nobody else may, a weak
 * password is refused as a reader's is, and the audit trail names the attribute, never its value.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueKey, onlyError } from '../../support/fixtures.js';
import { startService, type Client, type Service } from '../../support/service.js';
import { createStaff, signInSession, staffSignIn, type SessionClient, type TestStaff } from '../../support/staff.js';
import { forEachStore } from '../../support/stores.js';

const MAX_ATTEMPTS = 3;
const NEW_PASSWORD = 'a new staff password, long enough';
const CURRENT = '/data/attributes/currentPassword';

const passwordDocument = (id: string, attributes: Record<string, unknown>) => ({
  data: { type: 'staff', id, attributes },
});

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind, {
      readers: { signIn: { maxAttempts: MAX_ATTEMPTS, windowSeconds: 900 }, resetTokenTtlSeconds: 3600 },
    });
  });
  after(() => service.close());

  const changeOwn = (session: SessionClient, staff: TestStaff, attributes: Record<string, unknown>) =>
    session.patch(`/staff/${staff.id}`, passwordDocument(staff.id, attributes));
  const setAs = (client: Client | SessionClient, staff: TestStaff, attributes: Record<string, unknown>) =>
    client.patch(`/staff/${staff.id}`, passwordDocument(staff.id, attributes));
  const trailOf = async (staff: TestStaff) => {
    const response = await service.client.get(
      `/audit-events?filter[resourceType]=staff&filter[resourceId]=${staff.id}`,
    );
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((e: { attributes: { action: string; actor: string; attributes: string[] } }) => [
      e.attributes.action,
      e.attributes.actor,
      e.attributes.attributes,
    ]);
  };

  describe('a staff member changing their own password', () => {
    it('takes the new one for the old, keeps the session that changed it and ends the others', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      const other = await signInSession(service.client, staff);
      const changed = await changeOwn(session.client, staff, {
        password: NEW_PASSWORD,
        currentPassword: staff.password,
      });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.data.id, staff.id);

      assert.equal((await session.client.get('/users')).status, 200);
      assert.equal(onlyError(await other.client.get('/users'), 401).code, 'SESSION_INVALID');
      assert.equal((await staffSignIn(service.client, staff.email, NEW_PASSWORD)).status, 201);
      assert.equal(
        onlyError(await staffSignIn(service.client, staff.email, staff.password), 422).code,
        'INVALID_CREDENTIALS',
      );
      assert.deepEqual((await trailOf(staff)).at(-2), ['update', `staff:${staff.id}`, ['password']]);
    });

    it('refuses a wrong currentPassword at its pointer, changing nothing and ending no session', async () => {
      const staff = await createStaff(service.client, 'supervisor');
      const session = await signInSession(service.client, staff);
      const other = await signInSession(service.client, staff);
      const wrong = onlyError(
        await changeOwn(session.client, staff, { password: NEW_PASSWORD, currentPassword: 'not my password' }),
        422,
      );
      assert.deepEqual(
        [wrong.code, wrong.source.pointer, wrong.detail],
        ['INVALID_ATTRIBUTE', CURRENT, 'is incorrect'],
      );
      assert.equal((await other.client.get('/users')).status, 200);
      assert.equal(
        onlyError(await staffSignIn(service.client, staff.email, NEW_PASSWORD), 422).code,
        'INVALID_CREDENTIALS',
      );
      assert.equal((await staffSignIn(service.client, staff.email, staff.password)).status, 201);
    });

    it('needs currentPassword, refuses a common or short new password, and an admin must prove theirs too', async () => {
      const staff = await createStaff(service.client, 'admin');
      const session = await signInSession(service.client, staff);
      const missing = onlyError(await changeOwn(session.client, staff, { password: NEW_PASSWORD }), 422);
      assert.deepEqual([missing.source.pointer, missing.detail], [CURRENT, 'is needed to change your own password']);
      const common = onlyError(
        await changeOwn(session.client, staff, { password: 'password1', currentPassword: staff.password }),
        422,
      );
      assert.deepEqual([common.source.pointer, common.detail], ['/data/attributes/password', 'is too common']);
      const short = onlyError(
        await changeOwn(session.client, staff, { password: 'short', currentPassword: staff.password }),
        422,
      );
      assert.equal(short.source.pointer, '/data/attributes/password');
      assert.equal((await staffSignIn(service.client, staff.email, staff.password)).status, 201);
    });

    it('counts each currentPassword as a console sign-in attempt: guesses there lock out sign-ins, and back', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        const guess = await changeOwn(session.client, staff, { password: NEW_PASSWORD, currentPassword: `guess ${i}` });
        assert.equal(onlyError(guess, 422).source.pointer, CURRENT);
      }
      // The right one too, from the network that guessed, through either door, until the window passes.
      const right = await changeOwn(session.client, staff, { password: NEW_PASSWORD, currentPassword: staff.password });
      assert.equal(onlyError(right, 429).code, 'SIGN_IN_THROTTLED');
      assert.ok(Number(right.headers.get('retry-after')) > 0);
      assert.equal(
        onlyError(await staffSignIn(service.client, staff.email, staff.password), 429).code,
        'SIGN_IN_THROTTLED',
      );
    });
  });

  describe("an admin setting another staff member's password", () => {
    it('sets it without currentPassword and ends every session of theirs', async () => {
      const staff = await createStaff(service.client, 'agent');
      const sessions = [await signInSession(service.client, staff), await signInSession(service.client, staff)];
      const admin = await createStaff(service.client, 'admin');
      const adminSession = await signInSession(service.client, admin);
      const set = await setAs(adminSession.client, staff, { password: NEW_PASSWORD });
      assert.equal(set.status, 200, set.text);
      for (const session of sessions) {
        assert.equal(onlyError(await session.client.get('/users'), 401).code, 'SESSION_INVALID');
      }
      assert.equal((await adminSession.client.get('/staff')).status, 200);
      assert.equal((await staffSignIn(service.client, staff.email, NEW_PASSWORD)).status, 201);
      assert.equal(
        onlyError(await staffSignIn(service.client, staff.email, staff.password), 422).code,
        'INVALID_CREDENTIALS',
      );
      assert.deepEqual((await trailOf(staff)).at(-2), ['update', `staff:${admin.id}`, ['password']]);
    });

    it('lifts a lockout of their console sign-in: the new password signs in from the network that guessed', async () => {
      const staff = await createStaff(service.client, 'agent');
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        assert.equal((await staffSignIn(service.client, staff.email, `guess ${i}`)).status, 422);
      }
      assert.equal(
        onlyError(await staffSignIn(service.client, staff.email, staff.password), 429).code,
        'SIGN_IN_THROTTLED',
      );
      assert.equal((await setAs(service.client, staff, { password: NEW_PASSWORD })).status, 200);
      assert.equal((await staffSignIn(service.client, staff.email, NEW_PASSWORD)).status, 201);
    });

    it("from an admin credential too; refuses currentPassword, which only one's own change checks", async () => {
      const staff = await createStaff(service.client, 'supervisor');
      const refused = onlyError(
        await setAs(service.client, staff, { password: NEW_PASSWORD, currentPassword: staff.password }),
        422,
      );
      assert.equal(refused.source.pointer, CURRENT);
      const common = onlyError(await setAs(service.client, staff, { password: 'qwertyuiop' }), 422);
      assert.equal(common.detail, 'is too common');
      assert.equal((await setAs(service.client, staff, { password: NEW_PASSWORD })).status, 200);
      assert.equal((await staffSignIn(service.client, staff.email, NEW_PASSWORD)).status, 201);
    });
  });

  describe('who may not', () => {
    it("refuses another staff member's password from an agent, a supervisor and a write credential with 403", async () => {
      const target = await createStaff(service.client, 'agent');
      for (const role of ['agent', 'supervisor'] as const) {
        const session = await signInSession(service.client, await createStaff(service.client, role));
        const refused = await setAs(session.client, target, { password: NEW_PASSWORD });
        assert.equal(onlyError(refused, 403).code, 'SCOPE_INSUFFICIENT');
        const withCurrent = await setAs(session.client, target, {
          password: NEW_PASSWORD,
          currentPassword: target.password,
        });
        assert.equal(onlyError(withCurrent, 403).code, 'SCOPE_INSUFFICIENT');
      }
      const writer = service.client.as((await issueKey(service.client, ['write'])).secret);
      assert.equal(onlyError(await setAs(writer, target, { password: NEW_PASSWORD }), 403).code, 'SCOPE_INSUFFICIENT');
      assert.equal((await staffSignIn(service.client, target.email, target.password)).status, 201);
    });

    it('lets a staff member change nothing else of their own account with their password', async () => {
      const staff = await createStaff(service.client, 'agent');
      const session = await signInSession(service.client, staff);
      const promoted = await changeOwn(session.client, staff, {
        password: NEW_PASSWORD,
        currentPassword: staff.password,
        role: 'admin',
      });
      assert.equal(onlyError(promoted, 403).code, 'SCOPE_INSUFFICIENT');
      assert.equal(onlyError(await changeOwn(session.client, staff, {}), 403).code, 'SCOPE_INSUFFICIENT');
      assert.equal((await staffSignIn(service.client, staff.email, staff.password)).status, 201);
    });
  });
});
