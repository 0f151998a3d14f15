/**
 * One client, as requests are counted by where they come from: an IPv4 address (also written
 * IPv4-mapped), or the /64 an IPv6 address is in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientNetwork } from '../../src/domain/client-network.js';

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
  });
});
