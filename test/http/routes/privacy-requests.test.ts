/**
 * Privacy requests, through the API on every store: recorded about a reader by an administrator,
 * due one calendar month after they came, listed open by due date, closed by completedAt, and
 * stripped of their reader when the reader is erased.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, issueKey, onlyError } from '../../support/fixtures.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, type Service } from '../../support/service.js';

const request = (attributes: Record<string, unknown>, userId?: string) => ({
  data: {
    type: 'privacy-requests',
    attributes,
    ...(userId === undefined ? {} : { relationships: { user: { data: { type: 'users', id: userId } } } }),
  },
});

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const path = (self: string) => self.replace(service.baseUrl, '');
  const make = async (attributes: Record<string, unknown>, userId?: string) => {
    const response = await service.client.post(
      '/privacy-requests',
      request(attributes, userId ?? (await createUser(service.client))),
    );
    assert.equal(response.status, 201, response.text);
    return response.body.data;
  };
  const change = (id: string, attributes: Record<string, unknown>) =>
    service.client.patch(`/privacy-requests/${id}`, { data: { type: 'privacy-requests', id, attributes } });

  describe('POST /privacy-requests', () => {
    it('records a request about a reader, answered with its Location, and GET reads it back', async () => {
      const userId = await createUser(service.client);
      const response = await service.client.post(
        '/privacy-requests',
        request({ kind: 'access', receivedAt: '2026-03-10T09:30:00+01:00', notes: 'by letter' }, userId),
      );
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(response.headers.get('location'), data.links.self);
      assert.deepEqual(data.attributes, {
        kind: 'access',
        receivedAt: '2026-03-10T08:30:00+00:00',
        dueAt: '2026-04-10T08:30:00+00:00',
        completedAt: null,
        notes: 'by letter',
        readerErasedAt: null,
      });
      assert.deepEqual(data.relationships.user.data, { type: 'users', id: userId });
      const read = await service.client.get(path(data.links.self));
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, data);
    });

    it('takes now as receivedAt when none is sent', async () => {
      const before = Date.now() - 1000;
      const data = await make({ kind: 'objection' });
      const received = Date.parse(data.attributes.receivedAt);
      assert.ok(received >= before && received <= Date.now() + 1000, data.attributes.receivedAt);
    });

    it('makes dueAt one calendar month later, the month’s last day when it has no such date', async () => {
      const cases: [string, string][] = [
        ['2026-01-31T10:00:00+00:00', '2026-02-28T10:00:00+00:00'],
        ['2028-01-31T10:00:00+00:00', '2028-02-29T10:00:00+00:00'],
        ['2028-01-29T00:00:00+00:00', '2028-02-29T00:00:00+00:00'],
        ['2026-01-28T23:59:59+00:00', '2026-02-28T23:59:59+00:00'],
        ['2026-03-31T12:00:00+00:00', '2026-04-30T12:00:00+00:00'],
        ['2026-12-15T08:00:00+00:00', '2027-01-15T08:00:00+00:00'],
        ['2026-12-31T08:00:00+00:00', '2027-01-31T08:00:00+00:00'],
      ];
      for (const [receivedAt, dueAt] of cases) {
        const data = await make({ kind: 'erasure', receivedAt });
        assert.equal(data.attributes.dueAt, dueAt, receivedAt);
      }
    });

    it('refuses an unknown kind, a bad date, long notes and unknown attributes, each at its pointer', async () => {
      const userId = await createUser(service.client);
      const cases: [Record<string, unknown>, string][] = [
        [{ kind: 'deletion' }, '/data/attributes/kind'],
        [{}, '/data/attributes/kind'],
        [{ kind: 'access', receivedAt: '2026-02-30T00:00:00+00:00' }, '/data/attributes/receivedAt'],
        [{ kind: 'access', receivedAt: '2026-02-01' }, '/data/attributes/receivedAt'],
        [{ kind: 'access', notes: 'x'.repeat(2001) }, '/data/attributes/notes'],
        [{ kind: 'access', notes: 'a\u0000b' }, '/data/attributes/notes'],
        [{ kind: 'access', dueAt: '2026-02-01T00:00:00+00:00' }, '/data/attributes/dueAt'],
        [
          { kind: 'access', receivedAt: '2026-02-02T00:00:00+00:00', completedAt: '2026-02-01T00:00:00+00:00' },
          '/data/attributes/completedAt',
        ],
        [{ kind: 'access', receivedAt: '9999-12-01T00:00:00+00:00' }, '/data/attributes/receivedAt'],
      ];
      for (const [attributes, pointer] of cases) {
        const error = onlyError(await service.client.post('/privacy-requests', request(attributes, userId)), 422);
        assert.equal(error.source.pointer, pointer, JSON.stringify(attributes));
      }
    });

    it('takes notes of exactly the longest length, and a due date on the last day of 9999', async () => {
      const data = await make({ kind: 'access', notes: 'x'.repeat(2000), receivedAt: '9999-11-30T23:59:59+00:00' });
      assert.equal(data.attributes.notes.length, 2000);
      assert.equal(data.attributes.dueAt, '9999-12-30T23:59:59+00:00');
    });

    it('refuses a request without a reader, or about one that does not exist, at the relationship', async () => {
      const missing = onlyError(await service.client.post('/privacy-requests', request({ kind: 'access' })), 422);
      assert.equal(missing.source.pointer, '/data/relationships/user');
      const unknown = onlyError(
        await service.client.post('/privacy-requests', request({ kind: 'access' }, '999999999')),
        422,
      );
      assert.equal(unknown.source.pointer, '/data/relationships/user/data/id');
    });

    it('is for administrators alone: a write credential may neither make, list, read nor change one', async () => {
      const userId = await createUser(service.client);
      const { secret } = await issueKey(service.client, ['write']);
      const writer = service.client.as(secret);
      const refused = await writer.post('/privacy-requests', request({ kind: 'access' }, userId));
      assert.equal(refused.status, 403, refused.text);
      assert.equal((await writer.get('/privacy-requests')).status, 403);
      const made = await make({ kind: 'access' }, userId);
      assert.equal((await writer.get(path(made.links.self))).status, 403);
      assert.equal((await writer.patch(path(made.links.self), {})).status, 403);
    });

    it('is an event, privacy_request.created, and a change is privacy_request.updated', async () => {
      const userId = await createUser(service.client);
      const data = await make({ kind: 'rectification' }, userId);
      assert.equal((await change(data.id, { notes: 'address corrected' })).status, 200);
      const events = await service.client.get(
        `/events?filter[user]=${userId}&filter[type]=privacy_request.created,privacy_request.updated`,
      );
      assert.deepEqual(
        events.body.data.map((e: any) => [e.attributes.eventType, e.attributes.resourceId, e.attributes.changed]),
        [
          ['privacy_request.created', data.id, ['kind', 'user']],
          ['privacy_request.updated', data.id, ['notes']],
        ],
      );
    });
  });

  describe('PATCH /privacy-requests/{id}', () => {
    it('completes a request, moves dueAt with receivedAt, and opens it again with completedAt null', async () => {
      const data = await make({ kind: 'access', receivedAt: '2026-01-31T10:00:00+00:00' });
      const moved = await change(data.id, { receivedAt: '2026-03-31T10:00:00+00:00' });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.data.attributes.dueAt, '2026-04-30T10:00:00+00:00');
      const done = await change(data.id, { completedAt: '2026-04-02T00:00:00Z' });
      assert.equal(done.body.data.attributes.completedAt, '2026-04-02T00:00:00+00:00');
      const reopened = await change(data.id, { completedAt: null });
      assert.equal(reopened.body.data.attributes.completedAt, null);
    });

    it('refuses a completion before the stored receivedAt, takes one at it, and refuses a mismatched id', async () => {
      const data = await make({ kind: 'access', receivedAt: '2026-05-10T00:00:00+00:00' });
      const early = onlyError(await change(data.id, { completedAt: '2026-05-09T23:59:59+00:00' }), 422);
      assert.equal(early.source.pointer, '/data/attributes/completedAt');
      const at = await change(data.id, { completedAt: '2026-05-10T00:00:00+00:00' });
      assert.equal(at.status, 200, at.text);
      const mismatched = await service.client.patch(`/privacy-requests/${data.id}`, {
        data: { type: 'privacy-requests', id: '1', attributes: { notes: 'x' } },
      });
      assert.equal(onlyError(mismatched, 409).code, 'ID_CONFLICT');
    });

    it('answers 404 for a request that does not exist, and 412 for a stale If-Match', async () => {
      assert.equal((await change('999999999', { notes: 'x' })).status, 404);
      assert.equal((await service.client.get('/privacy-requests/999999999')).status, 404);
      const data = await make({ kind: 'access' });
      const stale = await service.client.patch(
        `/privacy-requests/${data.id}`,
        { data: { type: 'privacy-requests', id: data.id, attributes: { notes: 'x' } } },
        { headers: { 'if-match': '"999"' } },
      );
      assert.equal(stale.status, 412, stale.text);
    });
  });

  describe('GET /privacy-requests', () => {
    it('lists the open ones by due date with filter[open]=true&sort=dueAt, paged through links.next', async () => {
      const late = await make({ kind: 'access', receivedAt: '2001-03-01T00:00:00+00:00' });
      const early = await make({ kind: 'access', receivedAt: '2001-01-01T00:00:00+00:00' });
      const done = await make({ kind: 'access', receivedAt: '2000-12-01T00:00:00+00:00' });
      await change(done.id, { completedAt: '2001-01-02T00:00:00+00:00' });
      const middle = await make({ kind: 'erasure', receivedAt: '2001-02-01T00:00:00+00:00' });
      const seen: string[] = [];
      let next: string | undefined = '/privacy-requests?filter[open]=true&sort=dueAt&page[size]=2';
      while (next && seen.length < 4) {
        const page = await service.client.get(next);
        assert.equal(page.status, 200, page.text);
        seen.push(...page.body.data.map((d: any) => d.id));
        next = page.body.links.next && path(page.body.links.next);
      }
      assert.deepEqual(seen.slice(0, 3), [early.id, middle.id, late.id]);
      assert.ok(!seen.includes(done.id));
      const closed = await service.client.get('/privacy-requests?filter[open]=false');
      assert.ok(closed.body.data.some((d: any) => d.id === done.id));
      assert.ok(closed.body.data.every((d: any) => d.attributes.completedAt !== null));
    });

    it('refuses an unknown filter value, sort or parameter with a 400 naming it', async () => {
      for (const [query, parameter] of [
        ['filter[open]=yes', 'filter[open]'],
        ['sort=-dueAt', 'sort'],
        ['filter[kind]=access', 'filter[kind]'],
      ]) {
        const error = onlyError(await service.client.get(`/privacy-requests?${query}`), 400);
        assert.equal(error.source.parameter, parameter, query);
      }
    });
  });

  describe('erasing the reader', () => {
    it('leaves the request without its reader and notes, fulfilled, with its kind and dates', async () => {
      const userId = await createUser(service.client);
      const open = await make(
        { kind: 'erasure', receivedAt: '2026-01-05T00:00:00+00:00', notes: 'asked by phone' },
        userId,
      );
      const closed = await make({ kind: 'access', receivedAt: '2026-01-01T00:00:00+00:00', notes: 'sent' }, userId);
      await change(closed.id, { completedAt: '2026-01-03T00:00:00+00:00' });
      assert.equal((await service.client.delete(`/users/${userId}`)).status, 204);
      const read = (await service.client.get(`/privacy-requests/${open.id}`)).body.data;
      assert.equal(read.relationships.user.data, null);
      assert.equal(read.attributes.notes, null);
      assert.equal(read.attributes.kind, 'erasure');
      assert.equal(read.attributes.receivedAt, '2026-01-05T00:00:00+00:00');
      assert.equal(read.attributes.dueAt, '2026-02-05T00:00:00+00:00');
      assert.ok(read.attributes.readerErasedAt);
      assert.equal(read.attributes.completedAt, read.attributes.readerErasedAt);
      const other = (await service.client.get(`/privacy-requests/${closed.id}`)).body.data;
      assert.equal(other.attributes.completedAt, '2026-01-03T00:00:00+00:00');
      assert.equal(other.attributes.notes, null);
      const rows = await service.sql('SELECT count(*) AS n FROM privacy_requests WHERE user_id = ?', [userId]);
      assert.equal(Number(rows[0]?.n), 0);
      assert.ok(!(await service.rawDump()).includes('asked by phone'));
    });
  });
});
