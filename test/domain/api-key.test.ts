/**
 * API credentials on their own: what each scope allows, and secrets of the form
 * circ_<key id>_<43 random characters> of which only a SHA-256 is kept.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  allows,
  allowsAny,
  formatSecret,
  hashSecret,
  newSecret,
  parseSecret,
  SCOPES,
  secretMatches,
  type Scope,
} from '../../src/domain/api-key.js';

/** What each scope allows besides itself. */
const ALSO: Record<Scope, readonly Scope[]> = {
  read: [],
  write: ['read'],
  admin: SCOPES.filter((s) => s !== 'admin'),
  'sign-in': [],
  metrics: [],
  catalogue: [],
  access: [],
  'reset-tokens': [],
};

describe('allows', () => {
  for (const held of SCOPES) {
    it(`lets ${held} do what it grants and nothing else`, () => {
      for (const needed of SCOPES) {
        const granted = needed === held || ALSO[held].includes(needed);
        assert.equal(allows([held], needed), granted, `${held} → ${needed}`);
      }
    });
  }

  it('allows what any one of the scopes held allows, and nothing with none', () => {
    assert.equal(allows(['read', 'metrics'], 'metrics'), true);
    assert.equal(allows(['metrics', 'read'], 'metrics'), true);
    assert.equal(allows(['read', 'metrics'], 'write'), false);
    assert.equal(allows([], 'read'), false);
  });
});

describe('allowsAny', () => {
  it('allows when the scopes held allow any one of those accepted', () => {
    assert.equal(allowsAny(['catalogue'], ['read', 'catalogue']), true);
    assert.equal(allowsAny(['read'], ['read', 'catalogue']), true);
    assert.equal(allowsAny(['access'], ['read', 'catalogue']), false);
    assert.equal(allowsAny(['admin'], []), false);
  });
});

describe('secrets', () => {
  it('carry 256 random bits in base64url, of which only the SHA-256 is kept', () => {
    const { random, hash } = newSecret();
    assert.match(random, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(hash, createHash('sha256').update(random).digest());
    assert.deepEqual(hashSecret(random), hash);
    assert.notEqual(newSecret().random, random);
  });

  it('are read back into the key id and random part they were written of', () => {
    const { random } = newSecret();
    for (const id of ['1', '123456789012345']) {
      assert.deepEqual(parseSecret(formatSecret(id, random)), { id, random });
    }
    assert.equal(formatSecret('7', random), `circ_7_${random}`);
  });

  it('are not read from text of another form', () => {
    const random = `${'A'.repeat(20)}-_z9${'b'.repeat(19)}`;
    assert.deepEqual(parseSecret(`circ_7_${random}`), { id: '7', random });
    for (const text of [
      '',
      `circ_0_${random}`,
      `circ_1234567890123456_${random}`,
      `circ__${random}`,
      `circ_7_${random.slice(1)}`,
      `circ_7_${random}x`,
      `circ_7_${random.slice(1)}=`,
      `prt_7_${random}`,
      ` circ_7_${random}`,
      `circ_7_${random} `,
      `circ_x7_${random}`,
    ]) {
      assert.equal(parseSecret(text), undefined, text);
    }
  });

  it('match only the secret whose hash was kept', () => {
    const { random, hash } = newSecret();
    assert.equal(secretMatches(hash, random), true);
    const other = `${random.slice(0, -1)}${random.endsWith('A') ? 'B' : 'A'}`;
    assert.equal(secretMatches(hash, other), false);
    assert.equal(secretMatches(hash, ''), false);
    // A kept hash of another length (a damaged row) is no match, and no error.
    assert.equal(secretMatches(hash.subarray(0, 16), random), false);
  });
});
