/**
 * The links a reader follows from a mail without a credential: what their tokens carry, which
 * tokens are refused before any HMAC, and what following each link does to a consent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONSENT_STATES } from '../../src/domain/consent.js';
import {
  confirmationToken,
  confirmedChange,
  followedChange,
  isConfirmable,
  linkedChange,
  linkOutcome,
  listUnsubscribeHeaders,
  MAX_LINK_TOKEN_LENGTH,
  readConfirmationToken,
  unsubscribedChange,
  unsubscribeToken,
  unsubscribeTokenMatches,
} from '../../src/domain/consent-links.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const claim = { userId: '12', newsletterId: 'daily', version: 345, expiresAt: 1_900_000_000 };

/** The token with its character at `index` (counted from the end when negative) replaced by `by`. */
const replaced = (token: string, index: number, by: string) => {
  const i = index < 0 ? token.length + index : index;
  return `${token.slice(0, i)}${by}${token.slice(i + 1)}`;
};
/** A different base64url character in place of `c`. */
const other = (c: string) => (c === 'A' ? 'B' : 'A');

describe('a confirmation token', () => {
  it('is the version, the expiry and a 43-character MAC, and reads back as its claim', () => {
    const token = confirmationToken(KEY, claim);
    assert.match(token, /^345\.1900000000\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(readConfirmationToken(KEY, '12', 'daily', token), claim);
  });

  it('is refused for another reader, another newsletter, under another key, or altered in any part', () => {
    const token = confirmationToken(KEY, claim);
    assert.equal(readConfirmationToken(KEY, '13', 'daily', token), undefined);
    assert.equal(readConfirmationToken(KEY, '12', 'weekly', token), undefined);
    assert.equal(readConfirmationToken(OTHER_KEY, '12', 'daily', token), undefined);
    assert.equal(readConfirmationToken(KEY, '12', 'daily', token.replace(/^345/, '346')), undefined);
    assert.equal(readConfirmationToken(KEY, '12', 'daily', token.replace('.1900000000.', '.1900000001.')), undefined);
    assert.equal(
      readConfirmationToken(KEY, '12', 'daily', replaced(token, -1, other(token.at(-1) as string))),
      undefined,
    );
  });

  it('keeps its fields apart: reader 1 of newsletter 23 is not reader 12 of newsletter 3', () => {
    const token = confirmationToken(KEY, { ...claim, userId: '1', newsletterId: '23' });
    assert.equal(readConfirmationToken(KEY, '1', '23', token)?.userId, '1');
    assert.equal(readConfirmationToken(KEY, '12', '3', token), undefined);
  });

  it('is not an unsubscribe token, nor the other way round', () => {
    const unsubscribe = unsubscribeToken(KEY, '12', 'daily');
    assert.equal(
      readConfirmationToken(KEY, '12', 'daily', `${claim.version}.${claim.expiresAt}.${unsubscribe}`),
      undefined,
    );
    const mac = confirmationToken(KEY, claim).split('.')[2] as string;
    assert.equal(unsubscribeTokenMatches(KEY, '12', 'daily', mac), false);
  });

  it('names a version of 1 to 15 digits and an expiry of 1 to 12, neither with a leading zero', () => {
    const read = (version: number, expiresAt: number) =>
      readConfirmationToken(KEY, '12', 'daily', confirmationToken(KEY, { ...claim, version, expiresAt }));
    for (const [version, expiresAt] of [
      [1, 1],
      [9, 9],
      [999_999_999_999_999, 999_999_999_999],
    ] as const)
      assert.deepEqual(read(version, expiresAt), { ...claim, version, expiresAt }, `${version}.${expiresAt}`);
    for (const [version, expiresAt] of [
      [1_000_000_000_000_000, 1],
      [1, 1_000_000_000_000],
      [0, 1],
      [1, 0],
    ] as const)
      assert.equal(read(version, expiresAt), undefined, `${version}.${expiresAt}`);
    const token = confirmationToken(KEY, claim);
    assert.equal(readConfirmationToken(KEY, '12', 'daily', `0${token}`), undefined);
    assert.equal(readConfirmationToken(KEY, '12', 'daily', token.replace('.', '.0')), undefined);
  });

  it('is refused with anything before or after it, or a MAC a character short or long', () => {
    const token = confirmationToken(KEY, claim);
    for (const altered of [`x${token}`, `${token}x`, `${token}\n`, token.slice(0, -1), `${token}A`])
      assert.equal(readConfirmationToken(KEY, '12', 'daily', altered), undefined, JSON.stringify(altered));
  });

  it(`is refused beyond ${MAX_LINK_TOKEN_LENGTH} characters`, () => {
    assert.equal(readConfirmationToken(KEY, '12', 'daily', `1.1.${'A'.repeat(MAX_LINK_TOKEN_LENGTH)}`), undefined);
  });
});

describe('an unsubscribe token', () => {
  it('is a 43-character MAC of the reader and the newsletter', () => {
    const token = unsubscribeToken(KEY, '12', 'daily');
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(unsubscribeTokenMatches(KEY, '12', 'daily', token), true);
  });

  it('is refused for another reader, another newsletter, under another key, or altered', () => {
    const token = unsubscribeToken(KEY, '12', 'daily');
    assert.equal(unsubscribeTokenMatches(KEY, '13', 'daily', token), false);
    assert.equal(unsubscribeTokenMatches(KEY, '12', 'weekly', token), false);
    assert.equal(unsubscribeTokenMatches(OTHER_KEY, '12', 'daily', token), false);
    assert.equal(unsubscribeTokenMatches(KEY, '12', 'daily', replaced(token, 0, other(token[0] as string))), false);
  });

  it('keeps its fields apart: reader 1 of newsletter 23 is not reader 12 of newsletter 3', () => {
    const token = unsubscribeToken(KEY, '1', '23');
    assert.equal(unsubscribeTokenMatches(KEY, '1', '23', token), true);
    assert.equal(unsubscribeTokenMatches(KEY, '12', '3', token), false);
  });

  it('is refused with anything before or after it, or a character short or long', () => {
    const token = unsubscribeToken(KEY, '12', 'daily');
    for (const altered of [`x${token}`, `${token}x`, `${token}\n`, token.slice(0, -1), ''])
      assert.equal(unsubscribeTokenMatches(KEY, '12', 'daily', altered), false, JSON.stringify(altered));
  });

  it(`is refused beyond ${MAX_LINK_TOKEN_LENGTH} characters`, () => {
    const token = unsubscribeToken(KEY, '12', 'daily');
    assert.equal(unsubscribeTokenMatches(KEY, '12', 'daily', token.padEnd(MAX_LINK_TOKEN_LENGTH + 1, 'A')), false);
  });

  it('is compared as written: a character outside base64url whose low byte is the right one is refused', () => {
    // Read as latin1, U+0141 would be the byte 0x41 ('A'): only the token's pattern refuses it.
    const token = unsubscribeToken(KEY, '12', 'daily');
    const wide = String.fromCharCode((token.charCodeAt(0) as number) + 0x100);
    assert.equal(unsubscribeTokenMatches(KEY, '12', 'daily', replaced(token, 0, wide)), false);
  });
});

describe('following a link', () => {
  it('to confirm, makes a pending or suppressed reader subscribed, and no one else', () => {
    assert.deepEqual(
      CONSENT_STATES.filter((state) => isConfirmable(state)),
      ['pending', 'bounced', 'complained'],
    );
    for (const from of CONSENT_STATES) {
      const expected = isConfirmable(from) ? { newsletterId: 'daily', from, to: 'subscribed' } : null;
      assert.deepEqual(confirmedChange('daily', from), expected, from);
      assert.deepEqual(linkedChange('confirmation', 'daily', from), expected, from);
    }
  });

  it('to unsubscribe, makes a member or a pending reader unsubscribed, and leaves the rest', () => {
    for (const from of CONSENT_STATES) {
      const expected =
        from === 'subscribed' || from === 'pending' ? { newsletterId: 'daily', from, to: 'unsubscribed' } : null;
      assert.deepEqual(unsubscribedChange('daily', from), expected, from);
      assert.deepEqual(linkedChange('unsubscribe-link', 'daily', from), expected, from);
    }
  });

  it('to confirm, changes nothing once the consent has another version', () => {
    const consent = { newsletterId: 'daily', state: 'pending' as const, version: 5 };
    assert.deepEqual(followedChange('confirmation', consent, 5), {
      newsletterId: 'daily',
      from: 'pending',
      to: 'subscribed',
    });
    assert.equal(followedChange('confirmation', consent, 4), null);
    assert.deepEqual(followedChange('unsubscribe-link', consent), {
      newsletterId: 'daily',
      from: 'pending',
      to: 'unsubscribed',
    });
  });

  it('that changed nothing is stale for a confirmation, unchanged for an unsubscribe', () => {
    assert.equal(linkOutcome('confirmation', true), 'changed');
    assert.equal(linkOutcome('unsubscribe-link', true), 'changed');
    assert.equal(linkOutcome('confirmation', false), 'stale');
    assert.equal(linkOutcome('unsubscribe-link', false), 'unchanged');
  });
});

describe("a newsletter message's unsubscribe headers", () => {
  it('name the link and ask for one-click unsubscribing (RFC 2369, RFC 8058)', () => {
    assert.deepEqual(listUnsubscribeHeaders('https://example.com/u/1'), {
      'List-Unsubscribe': '<https://example.com/u/1>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });
});
