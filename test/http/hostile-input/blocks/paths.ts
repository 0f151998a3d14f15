/**
 * Hostile input: hostile paths. Whatever a client sends, the answer is a 4xx JSON:API error, the
 * process keeps serving, and a refused request leaves the store as it was (see ../harness.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rawRequest } from '../../../support/service.js';
import { type Hostile } from '../harness.js';

export function paths(hostile: Hostile): void {
  const { assertStillServing } = hostile;

  describe('hostile paths', () => {
    it('answers a 300-digit user id with a 4xx JSON:API error', async () => {
      const response = await hostile.service.client.get(`/users/${'1'.repeat(300)}`);
      assert.ok(response.status >= 400 && response.status < 500, response.text);
      assert.equal(response.body.errors[0].status, String(response.status));
    });

    it('answers a 300-character user id under subscriptions with a 4xx JSON:API error', async () => {
      const response = await hostile.service.client.get(`/users/${'x'.repeat(300)}/subscriptions`);
      assert.ok(response.status >= 400 && response.status < 500, response.text);
      assert.equal(response.body.errors[0].status, String(response.status));
    });

    it('answers a broken percent-encoding in the path with a 400 JSON:API error', async () => {
      const response = await hostile.service.client.get('/users/%E0%A4%A', { headers: { 'x-request-id': 'bad-path' } });
      assert.equal(response.status, 400, response.text);
      assert.equal(response.body.errors[0].status, '400');
      // Written before any route is found, yet as traceable as any other answer.
      assert.equal(response.headers.get('x-request-id'), 'bad-path');
    });

    it('answers a request target with a fragment with a 400 JSON:API error, not reading it as a query', async () => {
      // fetch drops a fragment before sending; node:http sends the target as it is given.
      const response = await rawRequest(hostile.service.baseUrl, { path: '/users#filter[email]=%FF' });
      assert.equal(response.status, 400, response.text);
      assert.equal(JSON.parse(response.text).errors[0].code, 'INVALID_URL');
    });

    for (const id of ['%00', '1%2F2', '1;DROP%20TABLE%20users', "1'%20OR%20'1'='1", '-1', '0x10']) {
      it(`answers user id ${JSON.stringify(id)} with 404`, async () => {
        const response = await hostile.service.client.get(`/users/${id}`);
        assert.equal(response.status, 404, response.text);
      });
    }

    it('keeps serving after hostile paths', assertStillServing);
  });
}
