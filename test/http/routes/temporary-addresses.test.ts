/**
 * Temporary addresses, through the API on every store: made for dates still open by their
 * cut-off, never overlapping, with an address validated as a user's is; changed, ended early and
 * deleted as their dates allow; every change an event.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUDIT, createUser, onlyError } from '../../support/fixtures.js';
import { assertChangesMeta, dateIn, daysAfter, today } from '../../support/print.js';
import { forEachStore } from '../../support/stores.js';
import { startService, type Service } from '../../support/service.js';

const ADDRESS = {
  streetAddress: '2 Shore Road',
  addressLocality: 'Brightsea',
  addressCountry: 'GB',
  postalCode: 'BS1 1AA',
};
const READ_ADDRESS = { ...ADDRESS, unitNumber: null, addressRegion: null };

const document = (startDate: unknown, endDate: unknown, address: unknown = ADDRESS) => ({
  data: { type: 'temporary-addresses', attributes: { startDate, endDate, address } },
});

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  async function reader() {
    const userId = await createUser(service.client);
    return { userId, path: `/users/${userId}/temporary-addresses` };
  }

  const change = (self: string, id: string, attributes: Record<string, unknown>) =>
    service.client.patch(self, { data: { type: 'temporary-addresses', id, attributes } });

  describe('POST …/temporary-addresses', () => {
    it('makes one, answered with its Location, and GET reads it back', async () => {
      const { userId, path } = await reader();
      const response = await service.client.post(path, document(dateIn(5), dateIn(9)));
      assert.equal(response.status, 201, response.text);
      const { data } = response.body;
      assert.equal(response.headers.get('location'), data.links.self);
      assert.equal(data.type, 'temporary-addresses');
      assert.deepEqual(data.attributes, {
        startDate: dateIn(5),
        endDate: dateIn(9),
        address: READ_ADDRESS,
        status: 'scheduled',
      });
      assert.deepEqual(data.relationships.user.data, { type: 'users', id: userId });
      const read = await service.client.get(data.links.self.replace(service.baseUrl, ''));
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, data);
    });

    it('refuses a start past its cut-off with PAST_CUTOFF at startDate', async () => {
      const { path } = await reader();
      for (const start of [dateIn(0), dateIn(-2)]) {
        const error = onlyError(await service.client.post(path, document(start, dateIn(3))), 422);
        assert.equal(error.code, 'PAST_CUTOFF');
        assert.equal(error.source.pointer, '/data/attributes/startDate');
      }
    });

    it('refuses dates that are not dates, 29 February of a common year among them', async () => {
      const { path } = await reader();
      for (const bad of [
        '2027-02-29',
        '2026-02-30',
        'next week',
        '2026-3-2',
        `${dateIn(5)}T00:00:00Z`,
        20260302,
        null,
      ]) {
        const error = onlyError(await service.client.post(path, document(bad, dateIn(6))), 422);
        assert.equal(error.source.pointer, '/data/attributes/startDate', String(bad));
        const end = onlyError(await service.client.post(path, document(dateIn(5), bad)), 422);
        assert.equal(end.source.pointer, '/data/attributes/endDate', String(bad));
      }
    });

    it('refuses an address that fails the address rules, naming the field', async () => {
      const { path } = await reader();
      const cases: [unknown, string][] = [
        [{ ...ADDRESS, addressCountry: 'US', addressRegion: 'Oregon' }, '/data/attributes/address/addressRegion'],
        [{ ...ADDRESS, addressCountry: 'Britain' }, '/data/attributes/address/addressCountry'],
        [{ ...ADDRESS, postalCode: 'x'.repeat(21) }, '/data/attributes/address/postalCode'],
        [{ ...ADDRESS, planet: 'Earth' }, '/data/attributes/address/planet'],
        [{}, '/data/attributes/address'],
        [null, '/data/attributes/address'],
        ['2 Shore Road', '/data/attributes/address'],
      ];
      for (const [address, pointer] of cases) {
        const response = await service.client.post(path, document(dateIn(5), dateIn(6), address));
        assert.equal(response.status, 422, JSON.stringify(address));
        assert.ok(
          response.body.errors.some((e: any) => e.source.pointer === pointer),
          `${JSON.stringify(address)}: ${response.text}`,
        );
      }
      const missing = await service.client.post(path, {
        data: { type: 'temporary-addresses', attributes: { startDate: dateIn(5), endDate: dateIn(6) } },
      });
      assert.equal(missing.status, 422);
      assert.equal(onlyError(missing, 422).source.pointer, '/data/attributes/address');
    });

    it('refuses an end before the start, and more than 366 dates', async () => {
      const { path } = await reader();
      const before = onlyError(await service.client.post(path, document(dateIn(6), dateIn(5))), 422);
      assert.equal(before.source.pointer, '/data/attributes/endDate');
      const long = onlyError(await service.client.post(path, document(dateIn(5), dateIn(5 + 366))), 422);
      assert.equal(long.source.pointer, '/data/attributes/endDate');
      assert.equal((await service.client.post(path, document(dateIn(5), dateIn(5 + 365)))).status, 201);
    });

    it('refuses one overlapping another by a day with 409 TEMPORARY_ADDRESS_OVERLAP, and takes one beside it', async () => {
      const { path } = await reader();
      assert.equal((await service.client.post(path, document(dateIn(10), dateIn(12)))).status, 201);
      const error = onlyError(await service.client.post(path, document(dateIn(12), dateIn(14))), 409);
      assert.equal(error.code, 'TEMPORARY_ADDRESS_OVERLAP');
      assert.equal(
        onlyError(await service.client.post(path, document(dateIn(8), dateIn(10))), 409).code,
        'TEMPORARY_ADDRESS_OVERLAP',
      );
      assert.equal((await service.client.post(path, document(dateIn(13), dateIn(14)))).status, 201);
      assert.equal((await service.client.post(path, document(dateIn(5), dateIn(9)))).status, 201);
    });

    it('of ten asked at once for the same dates, makes exactly one', async () => {
      const { path } = await reader();
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => service.client.post(path, document(dateIn(20), dateIn(21)))),
      );
      assert.deepEqual(responses.map((r) => r.status).sort(), [201, ...Array(9).fill(409)]);
    });

    it('answers 404 for a user that does not exist', async () => {
      const response = await service.client.post(
        '/users/999999999/temporary-addresses',
        document(dateIn(5), dateIn(6)),
      );
      assert.equal(response.status, 404);
      assert.equal((await service.client.get('/users/999999999/temporary-addresses')).status, 404);
    });
  });

  describe('PATCH and DELETE …/temporary-addresses/{id}', () => {
    it('moves the dates and changes the address of one not started', async () => {
      const { path } = await reader();
      const { id } = (await service.client.post(path, document(dateIn(10), dateIn(12)))).body.data;
      const moved = await change(`${path}/${id}`, id, {
        startDate: dateIn(11),
        address: { postalCode: 'NEW 1' },
      });
      assert.equal(moved.status, 200, moved.text);
      assert.deepEqual(moved.body.data.attributes, {
        startDate: dateIn(11),
        endDate: dateIn(12),
        address: {
          streetAddress: null,
          unitNumber: null,
          addressLocality: null,
          addressRegion: null,
          addressCountry: null,
          postalCode: 'NEW 1',
        },
        status: 'scheduled',
      });
      const crossed = await change(`${path}/${id}`, id, { endDate: dateIn(10) });
      assert.equal(onlyError(crossed, 422).source.pointer, '/data/attributes/endDate');
    });

    it('writes nothing for a change that changes nothing: the same version (ETag), no event', async () => {
      const { userId, path } = await reader();
      const created = await service.client.post(path, document(dateIn(10), dateIn(12)));
      const self = `${path}/${created.body.data.id}`;
      for (const attributes of [{}, { startDate: dateIn(10), endDate: dateIn(12) }]) {
        const same = await change(self, created.body.data.id, attributes);
        assert.equal(same.status, 200, same.text);
        assert.equal(same.headers.get('etag'), created.headers.get('etag'));
      }
      const feed = await service.client.get(`/events?filter[user]=${userId}`);
      assert.ok(!feed.body.data.some((e: any) => e.attributes.eventType === 'temporary_address.updated'));
      const moved = await change(self, created.body.data.id, { endDate: dateIn(13) });
      assert.notEqual(moved.headers.get('etag'), created.headers.get('etag'));
      assert.ok(created.headers.get('etag'));
    });

    it('refuses a change that would overlap another', async () => {
      const { path } = await reader();
      await service.client.post(path, document(dateIn(10), dateIn(12)));
      const { id } = (await service.client.post(path, document(dateIn(20), dateIn(22)))).body.data;
      assert.equal(
        onlyError(await change(`${path}/${id}`, id, { startDate: dateIn(12) }), 409).code,
        'TEMPORARY_ADDRESS_OVERLAP',
      );
    });

    it('deletes one not started, which then is gone', async () => {
      const { path } = await reader();
      const { id } = (await service.client.post(path, document(dateIn(10), dateIn(12)))).body.data;
      assert.equal((await service.client.delete(`${path}/${id}`)).status, 204);
      assert.equal((await service.client.get(`${path}/${id}`)).status, 404);
      assert.equal((await service.client.delete(`${path}/${id}`)).status, 404);
      assert.equal((await service.client.post(path, document(dateIn(11), dateIn(11)))).status, 201);
    });

    it('refuses to delete one started (ALREADY_STARTED) or change its start or address; PATCH endDate ends it early', async () => {
      const { userId, path } = await reader();
      const started = await service.store.temporaryAddresses.create(
        userId,
        () => ({
          startDate: today() - 3,
          endDate: today() + 20,
          address: { ...READ_ADDRESS },
        }),
        AUDIT,
      );
      assert.ok(started);
      const self = `${path}/${started.id}`;
      assert.equal(onlyError(await service.client.delete(self), 409).code, 'ALREADY_STARTED');
      assert.equal(onlyError(await change(self, started.id, { startDate: dateIn(2) }), 409).code, 'ALREADY_STARTED');
      assert.equal(
        onlyError(await change(self, started.id, { address: { postalCode: 'ELSEWHERE' } }), 409).code,
        'ALREADY_STARTED',
      );
      const closed = onlyError(await change(self, started.id, { endDate: dateIn(-1) }), 422);
      assert.equal(closed.code, 'PAST_CUTOFF');
      assert.equal(closed.source.pointer, '/data/attributes/endDate');
      const ended = await change(self, started.id, { endDate: dateIn(3) });
      assert.equal(ended.status, 200, ended.text);
      assert.deepEqual([ended.body.data.attributes.endDate, ended.body.data.attributes.status], [dateIn(3), 'active']);
    });

    it('holds a change and a deletion to If-Match: 412 for another version', async () => {
      const { path } = await reader();
      const created = await service.client.post(path, document(dateIn(10), dateIn(12)));
      const { id } = created.body.data;
      const etag = created.headers.get('etag') as string;
      const stale = await service.client.patch(
        `${path}/${id}`,
        { data: { type: 'temporary-addresses', id, attributes: { endDate: dateIn(13) } } },
        { headers: { 'if-match': '"999"' } },
      );
      assert.equal(stale.status, 412, stale.text);
      assert.equal((await service.client.delete(`${path}/${id}`, { headers: { 'if-match': '"999"' } })).status, 412);
      const changed = await service.client.patch(
        `${path}/${id}`,
        { data: { type: 'temporary-addresses', id, attributes: { endDate: dateIn(13) } } },
        { headers: { 'if-match': etag } },
      );
      assert.equal(changed.status, 200, changed.text);
      assert.notEqual(changed.headers.get('etag'), etag);
    });

    it('answers 404 for the temporary address of another user', async () => {
      const { path } = await reader();
      const { id } = (await service.client.post(path, document(dateIn(10), dateIn(12)))).body.data;
      const other = await reader();
      assert.equal((await service.client.get(`${other.path}/${id}`)).status, 404);
      assert.equal((await service.client.delete(`${other.path}/${id}`)).status, 404);
      assert.equal((await change(`${other.path}/${id}`, id, { endDate: dateIn(11) })).status, 404);
    });
  });

  describe('GET …/temporary-addresses', () => {
    it('lists the reader’s, paged by links.next', async () => {
      const { path } = await reader();
      for (const day of [10, 20, 30]) await service.client.post(path, document(dateIn(day), dateIn(day)));
      const first = await service.client.get(`${path}?page[size]=2`);
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 2);
      const next = await service.client.get(first.body.links.next.replace(service.baseUrl, ''));
      assert.deepEqual(
        next.body.data.map((t: any) => t.attributes.startDate),
        [dateIn(30)],
      );
      assert.equal(next.body.links.next, undefined);
    });

    it('states in meta the first date still open, which one may start on, and its cut-off', async () => {
      const { path } = await reader();
      const list = await service.client.get(path);
      assert.equal(list.status, 200, list.text);
      assertChangesMeta(list.body.meta);
      const { firstOpenDate } = list.body.meta;
      const closed = await service.client.post(path, document(daysAfter(firstOpenDate, -1), dateIn(40)));
      assert.equal(onlyError(closed, 422).code, 'PAST_CUTOFF');
      const made = await service.client.post(path, document(firstOpenDate, dateIn(40)));
      assert.equal(made.status, 201, made.text);
    });
  });

  describe('events', () => {
    it('are temporary_address.created, .updated and .deleted', async () => {
      const { userId, path } = await reader();
      const { id } = (await service.client.post(path, document(dateIn(10), dateIn(11)))).body.data;
      await change(`${path}/${id}`, id, { endDate: dateIn(12) });
      await service.client.delete(`${path}/${id}`);
      const feed = await service.client.get(`/events?filter[user]=${userId}`);
      const types = feed.body.data.map((e: any) => `${e.attributes.eventType} ${e.attributes.changed.join(',')}`);
      assert.deepEqual(types.slice(1), [
        'temporary_address.created address,endDate,startDate',
        'temporary_address.updated endDate',
        'temporary_address.deleted ',
      ]);
    });
  });
});
