/**
 * One client, as requests are counted by where they come from: an IPv4 address (also written
 * IPv4-mapped), or the /64 an IPv6 address is in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientNetwork, fastifyTrustProxy, parseTrustProxy } from '../../src/domain/client-network.js';

describe('clientNetwork', () => {
  it('is an IPv4 address itself, however it is written', () => {
    assert.equal(clientNetwork('203.0.113.7'), '203.0.113.7');
    assert.equal(clientNetwork('::ffff:203.0.113.7'), '203.0.113.7');
  });

  it('is the /64 of an IPv6 address, the same for every address in it', () => {
    assert.equal(clientNetwork('2001:db8:1:2::1'), '2001:db8:1:2::/64');
    assert.equal(clientNetwork('2001:0DB8:0001:0002:ffff:1:2:3'), '2001:db8:1:2::/64');
    assert.notEqual(clientNetwork('2001:db8:1:3::1'), clientNetwork('2001:db8:1:2::1'));
  });

  it('leaves what is not an address as it is', () => {
    assert.equal(clientNetwork('not an address'), 'not an address');
    assert.equal(clientNetwork('2001:db8::zz'), '2001:db8::zz');
    // Without a colon it is an IPv4 address, or not an address: either way it stands for itself.
    assert.equal(clientNetwork('1.5'), '1.5');
  });
});

describe('parseTrustProxy', () => {
  it('believes no proxy when empty or false, and every hop when true', () => {
    for (const text of ['', '  ', 'false', ' false ', '0']) assert.equal(parseTrustProxy(text), false, text);
    assert.equal(parseTrustProxy('true'), true);
    assert.equal(parseTrustProxy(' true\n'), true);
  });

  it('believes a number of hops, up to 100', () => {
    assert.deepEqual(parseTrustProxy('1'), { hops: 1 });
    assert.deepEqual(parseTrustProxy('100'), { hops: 100 });
    assert.throws(() => parseTrustProxy('101'), { message: '101 hops is more than 100' });
  });

  it('believes the proxies listed: addresses, CIDR ranges and the named ranges', () => {
    assert.deepEqual(parseTrustProxy('10.0.0.1, 10.1.0.0/16 ,loopback,linklocal,uniquelocal,2001:db8::1,fd00::/8'), {
      proxies: ['10.0.0.1', '10.1.0.0/16', 'loopback', 'linklocal', 'uniquelocal', '2001:db8::1', 'fd00::/8'],
    });
  });

  it('refuses what is not an address, a range or a named range, saying which', () => {
    for (const proxy of ['1.5', '10.0.0.0/33', 'intranet', '2001:db8::/129', '2001:db8:::1', '-1', 'TRUE']) {
      assert.throws(
        () => parseTrustProxy(`10.0.0.1,${proxy}`),
        { message: `"${proxy}" is not an IP address, a CIDR range, or one of loopback, linklocal, uniquelocal` },
        proxy,
      );
    }
  });

  it('quotes at most 60 characters of what it refuses', () => {
    const long = 'x'.repeat(61);
    assert.throws(() => parseTrustProxy(long), {
      message: `"${'x'.repeat(60)}" is not an IP address, a CIDR range, or one of loopback, linklocal, uniquelocal`,
    });
  });
});

describe('fastifyTrustProxy', () => {
  it('passes true and false as they are, and a list of proxies as Fastify’s comma-separated text', () => {
    assert.equal(fastifyTrustProxy(true), true);
    assert.equal(fastifyTrustProxy(false), false);
    assert.equal(fastifyTrustProxy({ proxies: ['10.0.0.1', 'loopback'] }), '10.0.0.1,loopback');
  });

  it('believes as many hops as given, counted from the connection (hop 0)', () => {
    const trust = fastifyTrustProxy({ hops: 2 });
    assert.ok(typeof trust === 'function');
    assert.equal(trust('10.0.0.1', 0), true);
    assert.equal(trust('10.0.0.1', 1), true);
    assert.equal(trust('10.0.0.1', 2), false);
  });
});
