/**
 * /newsletters over real HTTP on both stores: the same routes as products (products.test.ts
 * covers what they share in depth), with the members a newsletter has, and the users' side of
 * membership: joining registers an unknown newsletter, and an inactive one cannot be joined.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, onlyError } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

let counter = 0;
const uniqueId = (prefix = 'letter') => `${prefix}-${process.pid}-${++counter}`;

function newsletterDocument(attributes: Record<string, unknown> = {}, id?: string) {
  return {
    data: { type: 'newsletters', ...(id === undefined ? {} : { id }), attributes: { name: 'Morning', ...attributes } },
  };
}

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  const join = (userId: string, add: string[], remove: string[] = []) =>
    service.client.put(`/users/${userId}`, {
      data: { type: 'users', id: userId, attributes: { newsletters: { add, remove } } },
    });

  describe('/newsletters', () => {
    it('creates, reads with its members in meta, changes and lists a newsletter', async () => {
      const id = uniqueId('morning');
      const created = await service.client.post('/newsletters', newsletterDocument({ description: 'At 6' }, id));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('location'), `${service.baseUrl}/newsletters/${id}`);
      await createUser(service.client, { newsletters: { add: [id] } });
      await createUser(service.client, { newsletters: { add: [id] } });
      const read = await service.client.get(`/newsletters/${id}`);
      assert.deepEqual(read.body.data.meta, { members: 2 });
      assert.deepEqual(
        [read.body.data.attributes.name, read.body.data.attributes.description, read.body.data.attributes.active],
        ['Morning', 'At 6', true],
      );
      const changed = await service.client.patch(`/newsletters/${id}`, {
        data: { type: 'newsletters', id, attributes: { name: 'Early' } },
      });
      assert.equal(changed.body.data.attributes.name, 'Early');
      const listed = await service.client.get(`/newsletters?page[after]=${id.slice(0, -1)}&page[size]=100`);
      assert.ok(listed.body.data.some((n: any) => n.id === id && n.attributes.name === 'Early'));
    });

    it('answers 409 STILL_REFERENCED saying how many members it has, and deletes it once they left', async () => {
      const id = uniqueId();
      const user = await createUser(service.client, { newsletters: { add: [id] } });
      const error = onlyError(await service.client.delete(`/newsletters/${id}`), 409);
      assert.deepEqual(
        [error.code, error.detail],
        ['STILL_REFERENCED', `newsletter ${id} is still referred to by 1 members`],
      );
      assert.equal((await join(user, [], [id])).status, 204);
      assert.equal((await service.client.delete(`/newsletters/${id}`)).status, 204);
    });

    it('answers 409 ID_TAKEN for an id a newsletter has, and 422 at /data/id for one outside the pattern', async () => {
      const id = uniqueId();
      await service.client.post('/newsletters', newsletterDocument({}, id));
      assert.equal(
        onlyError(await service.client.post('/newsletters', newsletterDocument({}, id)), 409).code,
        'ID_TAKEN',
      );
      const bad = await service.client.post('/newsletters', newsletterDocument({}, 'mor ning'));
      assert.equal(bad.status, 422);
      assert.equal(bad.body.errors[0].source.pointer, '/data/id');
    });
  });

  describe("a user's newsletters", () => {
    it('registers a newsletter a user joins that the catalogue does not know, named as its id', async () => {
      const id = uniqueId('new');
      await createUser(service.client, { newsletters: { add: [id] } });
      const read = await service.client.get(`/newsletters/${id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual([read.body.data.attributes.name, read.body.data.meta.members], [id, 1]);
    });

    it('refuses to add a user to an inactive newsletter with 422 INACTIVE_REFERENCE at its place in add', async () => {
      const closed = uniqueId('closed');
      await service.client.post('/newsletters', newsletterDocument({ active: false }, closed));
      const user = await createUser(service.client);
      const error = onlyError(await join(user, [uniqueId(), closed]), 422);
      assert.deepEqual(
        [error.code, error.source.pointer, error.detail],
        [
          'INACTIVE_REFERENCE',
          '/data/attributes/newsletters/add/1',
          `newsletter ${closed} is inactive: it cannot be attached`,
        ],
      );
      assert.deepEqual((await service.client.get(`/users/${user}`)).body.data.attributes.newsletters, []);
    });

    it('refuses a newsletter id outside the pattern to add, and lets any stored id be removed', async () => {
      const user = await createUser(service.client);
      const error = onlyError(await join(user, ['with/slash']), 422);
      assert.equal(error.source.pointer, '/data/attributes/newsletters/add/0');
      assert.equal((await join(user, [], ['with/slash'])).status, 204);
    });
  });
});
