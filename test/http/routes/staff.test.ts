/**
 * /staff: admins open, list, read, change and disable staff accounts; a made password is shown
 * once; emails are unique without regard to case; nobody but an admin may touch them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueKey, onlyError, uniqueEmail } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { createStaff, signInSession, staffSignIn, STAFF_PASSWORD } from '../../support/staff.js';
import { forEachStoreAndCitus } from '../../support/citus.js';

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const staffDocument = (attributes: Record<string, unknown>) => ({ data: { type: 'staff', attributes } });

  describe('POST /staff', () => {
    it('answers 201 with the account, its role and no password, and a Location that reads it', async () => {
      const email = uniqueEmail('staff.example.com');
      const response = await service.client.post(
        '/staff',
        staffDocument({ email, name: 'Ana Agent', role: 'agent', password: STAFF_PASSWORD }),
      );
      assert.equal(response.status, 201, response.text);
      const { attributes } = response.body.data;
      assert.deepEqual(
        { ...attributes, createdAt: undefined },
        { email, name: 'Ana Agent', role: 'agent', disabledAt: null, createdAt: undefined },
      );
      assert.equal(response.body.meta, undefined);
      const read = await service.client.get(new URL(response.headers.get('location')!).pathname);
      assert.equal(read.status, 200);
      assert.equal(read.body.data.attributes.email, email);
    });

    it('makes a password when none is sent, shown once in meta.initialPassword, which signs in', async () => {
      const email = uniqueEmail('staff.example.com');
      const response = await service.client.post('/staff', staffDocument({ email, name: 'New', role: 'admin' }));
      assert.equal(response.status, 201, response.text);
      const password = response.body.meta.initialPassword as string;
      assert.ok(password.length >= 20);
      assert.equal((await staffSignIn(service.client, email, password)).status, 201);
      const [row] = await service.sql('SELECT password_hash FROM staff WHERE id = ?', [response.body.data.id]);
      assert.match(String(row?.password_hash), /^\$argon2id\$/);
    });

    it('refuses an email another staff member has, in any letter case, at /data/attributes/email', async () => {
      const taken = await createStaff(service.client, 'agent');
      const response = await service.client.post(
        '/staff',
        staffDocument({ email: taken.email.toUpperCase(), name: 'Twin', role: 'agent' }),
      );
      const error = onlyError(response, 422);
      assert.equal(error.code, 'EMAIL_TAKEN');
      assert.equal(error.source.pointer, '/data/attributes/email');
    });

    it('refuses an unknown role, a blank name and a common password, each at its field', async () => {
      const role = onlyError(
        await service.client.post('/staff', staffDocument({ email: uniqueEmail(), name: 'X', role: 'boss' })),
        422,
      );
      assert.equal(role.source.pointer, '/data/attributes/role');
      const name = onlyError(
        await service.client.post('/staff', staffDocument({ email: uniqueEmail(), name: '  ', role: 'agent' })),
        422,
      );
      assert.equal(name.source.pointer, '/data/attributes/name');
      const common = onlyError(
        await service.client.post(
          '/staff',
          staffDocument({ email: uniqueEmail(), name: 'X', role: 'agent', password: 'password1' }),
        ),
        422,
      );
      assert.deepEqual([common.source.pointer, common.detail], ['/data/attributes/password', 'is too common']);
    });
  });

  describe('GET /staff', () => {
    it('lists every account, without any password or hash', async () => {
      const member = await createStaff(service.client, 'supervisor');
      const response = await service.client.get('/staff');
      assert.equal(response.status, 200);
      assert.ok(response.body.data.some((m: { id: string }) => m.id === member.id));
    });
  });

  describe('PATCH /staff/{id}', () => {
    it('disables an account, which then cannot sign in, and enables it again', async () => {
      const member = await createStaff(service.client, 'agent');
      const disabled = await service.client.patch(`/staff/${member.id}`, {
        data: { type: 'staff', id: member.id, attributes: { disabled: true } },
      });
      assert.equal(disabled.status, 200, disabled.text);
      assert.notEqual(disabled.body.data.attributes.disabledAt, null);
      assert.equal((await staffSignIn(service.client, member.email, member.password)).status, 422);
      const enabled = await service.client.patch(`/staff/${member.id}`, {
        data: { type: 'staff', id: member.id, attributes: { disabled: false } },
      });
      assert.equal(enabled.body.data.attributes.disabledAt, null);
      assert.equal((await staffSignIn(service.client, member.email, member.password)).status, 201);
    });

    it('changes the role, and answers 412 to an If-Match of an older version', async () => {
      const member = await createStaff(service.client, 'agent');
      const read = await service.client.get(`/staff/${member.id}`);
      const etag = read.headers.get('etag')!;
      const changed = await service.client.patch(
        `/staff/${member.id}`,
        { data: { type: 'staff', id: member.id, attributes: { role: 'supervisor' } } },
        { headers: { 'if-match': etag } },
      );
      assert.equal(changed.body.data.attributes.role, 'supervisor');
      const stale = await service.client.patch(
        `/staff/${member.id}`,
        { data: { type: 'staff', id: member.id, attributes: { role: 'admin' } } },
        { headers: { 'if-match': etag } },
      );
      assert.equal(onlyError(stale, 412).code, 'PRECONDITION_FAILED');
    });

    it('answers 404 for an unknown account', async () => {
      const response = await service.client.patch('/staff/999999', {
        data: { type: 'staff', id: '999999', attributes: { disabled: true } },
      });
      assert.equal(onlyError(response, 404).code, 'RECORD_NOT_FOUND');
    });
  });

  describe('who may manage staff', () => {
    it('refuses a write credential and an agent or supervisor session with 403', async () => {
      const writer = service.client.as((await issueKey(service.client, ['write'])).secret);
      assert.equal(onlyError(await writer.get('/staff'), 403).code, 'SCOPE_INSUFFICIENT');
      for (const role of ['agent', 'supervisor'] as const) {
        const session = await signInSession(service.client, await createStaff(service.client, role));
        assert.equal(onlyError(await session.client.get('/staff'), 403).code, 'SCOPE_INSUFFICIENT');
      }
    });

    it('lets an admin session open an account, recorded under the staff member in the audit trail', async () => {
      const admin = await createStaff(service.client, 'admin');
      const session = await signInSession(service.client, admin);
      const response = await session.client.post(
        '/staff',
        staffDocument({ email: uniqueEmail(), name: 'Made by staff', role: 'agent' }),
      );
      assert.equal(response.status, 201, response.text);
      const audit = await service.client.get(
        `/audit-events?filter[resourceType]=staff&filter[resourceId]=${response.body.data.id}`,
      );
      assert.equal(audit.body.data[0].attributes.actor, `staff:${admin.id}`);
    });
  });
});
