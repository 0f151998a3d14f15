import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userDocument } from '../../support/fixtures.js';
import { rawRequest, startService } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

forEachStore((kind) => {
  describe('absolute links and Location', () => {
    it('use PUBLIC_URL when it is set', async () => {
      const service = await startService(kind, { publicUrl: 'https://api.example.com/circulation' });
      try {
        const response = await service.client.post('/users', userDocument());
        const { id } = response.body.data;
        assert.equal(response.headers.get('location'), `https://api.example.com/circulation/users/${id}`);
        const list = await service.client.get('/users');
        assert.equal(list.body.links.first, 'https://api.example.com/circulation/users?page%5Bnumber%5D=1');
      } finally {
        await service.close();
      }
    });

    it('follow the Host the request came to when PUBLIC_URL is unset', async () => {
      const service = await startService(kind);
      try {
        const response = await rawRequest(service.baseUrl, {
          method: 'POST',
          path: '/users',
          headers: { host: 'circulation.internal:8080', 'content-type': 'application/vnd.api+json' },
          body: JSON.stringify(userDocument()),
        });
        assert.equal(response.status, 201, response.text);
        const { id } = JSON.parse(response.text).data;
        assert.equal(response.headers.location, `http://circulation.internal:8080/users/${id}`);
      } finally {
        await service.close();
      }
    });

    it('ignore X-Forwarded-Proto and X-Forwarded-Host unless a proxy is trusted', async () => {
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example.com' };
      const untrusting = await startService(kind);
      const trusting = await startService(kind, { trustProxy: true });
      try {
        const plain = await untrusting.client.get('/users', { headers: forwarded });
        assert.equal(plain.body.links.first, `${untrusting.baseUrl}/users?page%5Bnumber%5D=1`);
        const proxied = await trusting.client.get('/users', { headers: forwarded });
        assert.equal(proxied.body.links.first, 'https://public.example.com/users?page%5Bnumber%5D=1');
      } finally {
        await untrusting.close();
        await trusting.close();
      }
    });

    it('refuse a Host header that is not a host name rather than echo it', async () => {
      const service = await startService(kind);
      try {
        const response = await rawRequest(service.baseUrl, { path: '/users', headers: { host: 'evil.com"><script>' } });
        assert.equal(response.status, 400, response.text);
        assert.deepEqual(JSON.parse(response.text).errors[0].source, { header: 'Host' });
        assert.ok(!response.text.includes('<script>'));
      } finally {
        await service.close();
      }
    });
  });
  describe('the links of one response', () => {
    it('percent-encode their query alike, brackets too, self as well as first and next', async () => {
      const service = await startService(kind);
      try {
        await service.client.post('/users', userDocument({ email: 'Ada.Links@example.com' }));
        await service.client.post('/users', userDocument({ email: 'Bo.Links@example.com' }));
        // Sent with an unencoded @ and with encoded brackets: written back the one way.
        const response = await service.client.get('/users?filter%5Bemail%5D=example.com&page[size]=1');
        const { self, first, next } = response.body.links;
        assert.equal(self, `${service.baseUrl}/users?filter%5Bemail%5D=example.com&page%5Bsize%5D=1`);
        const byAddress = await service.client.get('/users?filter[email]=ADA.links@example.com');
        for (const link of Object.values(byAddress.body.links) as string[]) {
          assert.match(link, /filter%5Bemail%5D=ADA\.links%40example\.com/, link);
        }
        assert.ok(first.includes('filter%5Bemail%5D=example.com') && next.includes('filter%5Bemail%5D=example.com'));
      } finally {
        await service.close();
      }
    });

    it('encode a cursor list alike, its self and its next', async () => {
      const service = await startService(kind);
      try {
        await service.client.post('/users', userDocument());
        await service.client.post('/users', userDocument());
        const response = await service.client.get('/events?filter%5Btype%5D=user.created&page[size]=1');
        assert.equal(
          response.body.links.self,
          `${service.baseUrl}/events?filter%5Btype%5D=user.created&page%5Bsize%5D=1`,
        );
        assert.match(
          response.body.links.next,
          /^[^%]*\?filter%5Btype%5D=user\.created&page%5Bsize%5D=1&page%5Bafter%5D=\d+$/,
        );
      } finally {
        await service.close();
      }
    });
  });
});
