import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newResetToken, parseResetToken } from '../../src/domain/password-reset.js';

describe('password reset tokens', () => {
  it('name their user and carry 256 random bits, of which only a hash is kept', () => {
    const { token, hash } = newResetToken('42');
    assert.match(token, /^prt_42_[A-Za-z0-9_-]{43}$/);
    assert.equal(hash.length, 32);
    assert.ok(!hash.toString('latin1').includes(token.slice(-43)));
    assert.deepEqual(parseResetToken(token), { userId: '42', hash });
  });

  it('are new every time', () => {
    assert.notEqual(newResetToken('1').token, newResetToken('1').token);
  });

  it('are not read from text of another form', () => {
    const { token } = newResetToken('7');
    for (const text of [
      '',
      token.slice(0, -1),
      `${token}x`,
      token.replace('prt_', 'circ_'),
      'prt_0_' + token.slice(-43),
      ` ${token}`,
    ]) {
      assert.equal(parseResetToken(text), undefined, text);
    }
  });
});
