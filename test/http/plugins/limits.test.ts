/**
 * Rate limits per credential, and the limits and headers that harden every response.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { issueCredential } from '../../../src/secrets/api-credentials.js';
import { AUDIT, issueKey, onlyError } from '../../support/fixtures.js';
import { rawRequest, startService, type Client, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  describe('rate limits', () => {
    let service: Service;
    let admin: Client;
    before(async () => {
      service = await startService(kind, {
        auth: { enabled: true, adminKey: undefined, rateLimit: { perSecond: 1, burst: 3 } },
      });
      const issued = await issueCredential(service.store, { name: 'admin', scopes: ['admin'], rateLimit: 1000 }, AUDIT);
      admin = service.client.as(issued.secret);
    });
    after(() => service.close());

    /** Four requests at once: each is answered within far less than the second a token takes. */
    async function fourAtOnce(secret: string) {
      return Promise.all(Array.from({ length: 4 }, () => service.client.as(secret).get('/users')));
    }

    it('answer 429 with Retry-After past the burst, and recover as the bucket refills', async () => {
      const { secret } = await issueKey(admin, ['read']);
      const responses = await fourAtOnce(secret);
      assert.deepEqual(responses.map((r) => r.status).sort(), [200, 200, 200, 429]);
      assert.deepEqual(responses.map((r) => r.headers.get('ratelimit-remaining')).sort(), ['0', '0', '1', '2']);
      const limited = responses.find((r) => r.status === 429)!;
      assert.equal(onlyError(limited, 429).title, 'Too Many Requests');
      assert.equal(limited.headers.get('ratelimit-limit'), '3');
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1, `Retry-After ${retryAfter}`);
      await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
      assert.equal((await service.client.as(secret).get('/users')).status, 200);
    });

    it('advertise both the sustained rate and the burst, in the IETF RateLimit-Policy and RateLimit fields', async () => {
      const { secret } = await issueKey(admin, ['read']);
      const first = await service.client.as(secret).get('/users');
      assert.equal(first.headers.get('ratelimit-policy'), '"rate";q=1;w=1, "burst";q=3');
      assert.match(first.headers.get('ratelimit') ?? '', /^"burst";r=2;t=\d+$/);
      const { secret: own } = await issueKey(admin, ['read'], { rateLimit: 50 });
      const fast = await service.client.as(own).get('/users');
      assert.equal(fast.headers.get('ratelimit-policy'), '"rate";q=50;w=1, "burst";q=150');
    });

    it('hold back requests without a valid credential by their address, with Retry-After', async () => {
      // This suite's service allows 3 at once and 1 a second: public routes and wrong secrets share a bucket.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const statuses = [];
      for (const credential of [null, null, 'circ_1_wrong', null]) {
        const response = await service.client.as(credential).get(credential === null ? '/health/live' : '/users');
        statuses.push(response.status);
        if (response.status === 429) assert.ok(Number(response.headers.get('retry-after')) >= 1);
      }
      assert.deepEqual(statuses, [200, 200, 401, 429]);
      assert.equal((await service.client.as(null).get('/users')).status, 429);
      assert.equal((await admin.get('/users')).status, 200, 'a valid credential is held back by its address');
    });

    it("keep one bucket per credential, and a credential's own rate over the default", async () => {
      const fast = await issueKey(admin, ['read'], { rateLimit: 50 });
      const slow = await issueKey(admin, ['read']);
      const fastStatuses = [];
      for (let i = 0; i < 10; i += 1) fastStatuses.push((await service.client.as(fast.secret).get('/users')).status);
      assert.ok(
        fastStatuses.every((s) => s === 200),
        `the faster credential was limited: ${fastStatuses}`,
      );
      const slowStatuses = (await fourAtOnce(slow.secret)).map((r) => r.status).sort();
      assert.deepEqual(slowStatuses, [200, 200, 200, 429]);
    });
  });

  describe('hardening', () => {
    let service: Service;
    before(async () => {
      service = await startService(kind);
    });
    after(() => service.close());

    it('sends security headers and no X-Powered-By on every response', async () => {
      for (const response of [await service.client.get('/users'), await service.client.get('/nowhere')]) {
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(response.headers.get('x-frame-options'), 'DENY');
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
        assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
        assert.equal(response.headers.get('x-powered-by'), null);
      }
    });

    it('refuses an address over 4,096 characters with 414', async () => {
      const error = onlyError(await service.client.get(`/users?filter[email]=${'a'.repeat(5000)}`), 414);
      assert.equal(error.title, 'URI Too Long');
    });

    it('refuses headers over 16 KiB with a JSON:API 431', async () => {
      const response = await rawRequest(service.baseUrl, {
        path: '/users',
        headers: { 'x-padding': 'p'.repeat(20_000) },
      });
      assert.equal(response.status, 431);
      assert.equal(response.headers['content-type'], 'application/vnd.api+json');
      assert.equal(JSON.parse(response.text).errors[0].status, '431');
    });

    it('closes a connection that sends a broken request line with a JSON:API 400', async () => {
      const text = await new Promise<string>((resolve, reject) => {
        const url = new URL(service.baseUrl);
        const socket = connect(Number(url.port), url.hostname, () => socket.write('NONSENSE\r\n\r\n'));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      assert.match(text, /^HTTP\/1\.1 400 /);
      assert.match(text, /content-type: application\/vnd\.api\+json/);
    });
  });
});
