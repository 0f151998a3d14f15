import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emailKeys, isEmail } from '../../src/domain/email.js';

describe('isEmail', () => {
  it('accepts ordinary addresses', () => {
    for (const text of [
      'reader@example.com',
      'First.Last+tag@sub.example.co.uk',
      "o'brien@example.ie",
      'a_b-c@x-y.example',
      '1@2.io',
    ]) {
      assert.equal(isEmail(text), true, text);
    }
  });

  it('rejects what is not an address', () => {
    for (const text of [
      '',
      'plain',
      '@example.com',
      'reader@',
      'reader@@example.com',
      'two@at@example.com',
      'with space@example.com',
      'reader@exa mple.com',
      'reader@example..com',
      'reader@.example.com',
      'reader@example.com.',
      'reader@-example.com',
      'reader@example-.com',
      'reader@exam_ple.com',
      'reader@example.com\n',
    ]) {
      assert.equal(isEmail(text), false, JSON.stringify(text));
    }
  });

  it('accepts labels of one character', () => {
    assert.equal(isEmail('reader@b.c'), true);
    assert.equal(isEmail('reader@b.c.d'), true);
  });

  it('requires a dot in the domain', () => {
    assert.equal(isEmail('user@localhost'), false);
  });

  it('rejects a domain label longer than 63 characters', () => {
    assert.equal(isEmail(`reader@${'b'.repeat(63)}.com`), true);
    assert.equal(isEmail(`reader@${'b'.repeat(64)}.com`), false);
  });

  it('accepts 254 characters and rejects 255', () => {
    // 64-character local part and labels of at most 63, so only the total length is at stake
    const address = (lastLabel: number) =>
      `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(lastLabel)}`;
    assert.equal(address(61).length, 254);
    assert.equal(isEmail(address(61)), true);
    assert.equal(address(62).length, 255);
    assert.equal(isEmail(address(62)), false);
  });
});

describe('emailKeys', () => {
  it('lower-cases the whole address and its domain', () => {
    assert.deepEqual(emailKeys('Reader.One@Example.COM'), { lower: 'reader.one@example.com', domain: 'example.com' });
  });

  it('takes the domain after the last @', () => {
    assert.equal(emailKeys('example.com@Other.Example').domain, 'other.example');
  });
});
