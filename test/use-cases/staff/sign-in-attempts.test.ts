/**
 * The keys and limits of the console's sign-in throttle: one count per email and network, one
 * per email at a ceiling ten times higher in the same window, and never a key a reader's count
 * (a bare email) or the other staff key could have.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEmail } from '../../../src/domain/email.js';
import { emailCeiling, EMAIL_CEILING_FACTOR, staffAttemptKeys } from '../../../src/use-cases/staff/sign-in-attempts.js';

describe('staffAttemptKeys', () => {
  it('keys the email without regard to case, and the pair by email and network', () => {
    assert.deepEqual(staffAttemptKeys('Ada@Publisher.example', '203.0.113.7'), {
      email: 'staff:ada@publisher.example',
      pair: 'staff:ada@publisher.example 203.0.113.7',
    });
    assert.equal(
      staffAttemptKeys('ada@publisher.example', '2001:db8:1:2::/64').pair,
      'staff:ada@publisher.example 2001:db8:1:2::/64',
    );
  });

  it('gives each network a pair of its own, and every network the same email key', () => {
    const a = staffAttemptKeys('ada@publisher.example', '203.0.113.7');
    const b = staffAttemptKeys('ada@publisher.example', '198.51.100.20');
    assert.notEqual(a.pair, b.pair);
    assert.equal(a.email, b.email);
  });

  it('gives keys no email can be, so a reader never shares a staff count', () => {
    for (const key of Object.values(staffAttemptKeys('ada@publisher.example', '203.0.113.7'))) {
      assert.equal(isEmail(key), false, key);
    }
  });

  it('keeps a network that is not an address short, and apart from every other', () => {
    const long = staffAttemptKeys('ada@publisher.example', 'x'.repeat(8000)).pair;
    assert.ok(long.length < 100, long);
    assert.notEqual(long, staffAttemptKeys('ada@publisher.example', 'x'.repeat(7999)).pair);
    assert.notEqual(
      staffAttemptKeys('ada@publisher.example', 'a b').pair,
      staffAttemptKeys('ada@publisher.example', 'a').pair,
    );
  });

  it('splits a pair key at its one space into the email key and the network, so no two pairs meet', () => {
    const { pair, email } = staffAttemptKeys('ada@publisher.example', '1.2.3.4 staff:bob@publisher.example');
    assert.ok(!email.includes(' '));
    assert.equal(pair.split(' ').length, 2, pair);
    assert.equal(pair.split(' ')[0], email);
  });
});

describe('emailCeiling', () => {
  it("is ten times the pair's limit, in the same window", () => {
    assert.equal(EMAIL_CEILING_FACTOR, 10);
    assert.deepEqual(emailCeiling({ maxAttempts: 10, windowSeconds: 900 }), { maxAttempts: 100, windowSeconds: 900 });
  });
});
