/**
 * Hostile input: SQL metacharacters in filters. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Hostile } from '../harness.js';

export function sqlMetacharacters(hostile: Hostile): void {
  describe('SQL metacharacters in filters', () => {
    const filters: [string, string][] = [
      ['filter[email]', "' OR 1=1 --"],
      ['filter[email]', "x@example.com' OR '1'='1"],
      ['filter[email]', '" OR ""="'],
      ['filter[circulationNumber]', "%' ;DROP TABLE users;--"],
      ['filter[circulationNumber]', "C-1' OR 'a'='a"],
      ['filter[circulationNumber]', '%'],
      ['filter[circulationNumber]', 'C_1'],
    ];
    for (const [parameter, value] of filters) {
      it(`treats ${parameter}=${value} as plain text: 200, no matches, store unchanged`, async () => {
        const state = await hostile.service.snapshot();
        const response = await hostile.service.client.get(`/users?${parameter}=${encodeURIComponent(value)}`);
        assert.equal(response.status, 200, response.text);
        assert.deepEqual(response.body.data, []);
        assert.equal(await hostile.service.snapshot(), state);
      });
    }

    it("takes filter[email]=' OR 1=1 -- unencoded in the address as plain text too", async () => {
      const response = await hostile.service.client.get("/users?filter[email]=' OR 1=1 --");
      assert.equal(response.status, 200, response.text);
      assert.deepEqual(response.body.data, []);
    });

    it('still has the users table and its rows after the filters above', async () => {
      const [count] = await hostile.service.sql('SELECT count(*) AS n FROM users');
      assert.ok(Number(count?.n) >= 1);
      const response = await hostile.service.client.get('/users?filter[circulationNumber]=C-1');
      assert.deepEqual(
        response.body.data.map((u: { id: string }) => u.id),
        [hostile.userId],
      );
    });
  });
}
