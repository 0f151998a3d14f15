import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, uniqueEmail, userDocument } from '../support/fixtures.js';
import { startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

forEachStore((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  describe('concurrent requests', () => {
    it('land 50 parallel creates, each with its own id', async () => {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          service.client.post('/users', userDocument({ password: `password number ${i}` })),
        ),
      );
      assert.deepEqual(
        responses.map((r) => r.status),
        Array(50).fill(201),
      );
      const ids = new Set(responses.map((r) => r.body.data.id));
      assert.equal(ids.size, 50);
      for (const response of responses) {
        const read = await service.client.get(`/users/${response.body.data.id}`);
        assert.deepEqual(read.body.data.attributes, response.body.data.attributes);
      }
    });

    it('keep all of 20 parallel newsletter adds on one user', async () => {
      const id = await createUser(service.client);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          service.client.put(`/users/${id}`, {
            data: { type: 'users', id, attributes: { newsletters: { add: [`letter-${String(i).padStart(2, '0')}`] } } },
          }),
        ),
      );
      assert.ok(responses.every((r) => r.status === 204));
      const { newsletters } = (await service.client.get(`/users/${id}`)).body.data.attributes;
      assert.deepEqual(
        newsletters,
        Array.from({ length: 20 }, (_, i) => `letter-${String(i).padStart(2, '0')}`),
      );
    });

    it('yield exactly one user when the same email, in two letter cases, is raced', async () => {
      for (let round = 0; round < 10; round += 1) {
        const email = uniqueEmail();
        const responses = await Promise.all([
          service.client.post('/users', userDocument({ email, password: 'raced password one' })),
          service.client.post('/users', userDocument({ email: email.toUpperCase(), password: 'raced password two' })),
        ]);
        assert.deepEqual(responses.map((r) => r.status).sort(), [201, 422]);
        const found = await service.client.get(`/users?filter[email]=${encodeURIComponent(email)}`);
        assert.equal(found.body.data.length, 1);
      }
    });
  });
});
