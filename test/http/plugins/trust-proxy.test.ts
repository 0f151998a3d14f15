/**
 * TRUST_PROXY decides whose X-Forwarded-For the service believes, and so which client a request
 * without a credential is limited as. `true` believes every hop: the first entry, which a client
 * behind a proxy that appends may write itself. A number of proxies, or their addresses, believe
 * only the entries those proxies appended, so a forged first entry changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TrustProxy } from '../../../src/domain/client-network.js';
import { onlyError } from '../../support/fixtures.js';
import { startService, type Service } from '../../support/service.js';
import { forEachStore } from '../../support/stores.js';

/** Two requests a client, then 429: a request's client is what the limit shows. */
const RATE_LIMIT = { perSecond: 1, burst: 2 };

forEachStore((kind) => {
  const trusting = (trustProxy: TrustProxy) => {
    let service: Service;
    before(async () => {
      service = await startService(kind, {
        trustProxy,
        auth: { enabled: true, rateLimit: RATE_LIMIT },
      });
    });
    after(() => service.close());
    /** GET /users without a credential, as a proxy chain forwards it: 401 while the client's budget lasts. */
    return (forwardedFor: string) =>
      service.client.as(null).get('/users', { headers: { 'x-forwarded-for': forwardedFor } });
  };

  describe('TRUST_PROXY=true', () => {
    const request = trusting(true);
    it('takes the first entry of X-Forwarded-For: a client that writes it is a new client each time', async () => {
      for (let i = 1; i <= 4; i += 1) {
        assert.equal((await request(`192.0.2.${i}, 203.0.113.1`)).status, 401, `request ${i}`);
      }
    });
  });

  describe('TRUST_PROXY as a number of proxies', () => {
    const request = trusting({ hops: 1 });
    it('takes the entry the one proxy appended, whatever the client wrote before it', async () => {
      for (let i = 1; i <= 2; i += 1) assert.equal((await request(`192.0.2.${i}, 203.0.113.2`)).status, 401);
      assert.equal(onlyError(await request('192.0.2.9, 203.0.113.2'), 429).code, 'RATE_LIMITED');
      assert.equal((await request('203.0.113.2, 198.51.100.2')).status, 401);
    });
  });

  describe('TRUST_PROXY as two proxies', () => {
    const request = trusting({ hops: 2 });
    it('takes the entry two back from the connection', async () => {
      for (let i = 1; i <= 2; i += 1) assert.equal((await request(`192.0.2.${i}, 203.0.113.3, 10.0.0.1`)).status, 401);
      assert.equal(onlyError(await request('192.0.2.9, 203.0.113.3, 10.0.0.2'), 429).code, 'RATE_LIMITED');
    });
  });

  describe('TRUST_PROXY as the addresses of the proxies', () => {
    const request = trusting({ proxies: ['127.0.0.1', '10.0.0.0/8'] });
    it('walks back past the listed proxies and takes the first address that is none of them', async () => {
      for (let i = 1; i <= 2; i += 1) {
        assert.equal((await request(`192.0.2.${i}, 203.0.113.4, 10.1.2.3`)).status, 401);
      }
      assert.equal(onlyError(await request('192.0.2.9, 203.0.113.4'), 429).code, 'RATE_LIMITED');
      assert.equal((await request('203.0.113.4, 198.51.100.4, 10.9.9.9')).status, 401);
    });

    it('believes no X-Forwarded-For from a connection that is not a listed proxy', async () => {
      const strict = await startService(kind, {
        trustProxy: { proxies: ['10.0.0.0/8'] },
        auth: { enabled: true, rateLimit: RATE_LIMIT },
      });
      try {
        const from = (forwardedFor: string) =>
          strict.client.as(null).get('/users', { headers: { 'x-forwarded-for': forwardedFor } });
        assert.equal((await from('203.0.113.5')).status, 401);
        assert.equal((await from('203.0.113.6')).status, 401);
        // Every request is the loopback connection's, whatever it forwards.
        assert.equal(onlyError(await from('203.0.113.7'), 429).code, 'RATE_LIMITED');
      } finally {
        await strict.close();
      }
    });
  });
});
