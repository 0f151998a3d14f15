import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  mayBeShownResetToken,
  newResetToken,
  parseResetToken,
  resetLink,
  resetUrlProblem,
} from '../../src/domain/password-reset.js';

describe('password reset tokens', () => {
  it('name their user and carry 256 random bits, of which only a hash is kept', () => {
    const { token, hash } = newResetToken('42');
    assert.match(token, /^prt_42_[A-Za-z0-9_-]{43}$/);
    assert.equal(hash.length, 32);
    assert.ok(!hash.toString('latin1').includes(token.slice(-43)));
    assert.deepEqual(parseResetToken(token), { userId: '42', hash });
  });

  it('name any user id of up to fifteen digits, and carry base64url characters', () => {
    const random = `${'A'.repeat(20)}-_z9${'b'.repeat(19)}`;
    for (const userId of ['1', '123456789012345']) {
      assert.equal(parseResetToken(`prt_${userId}_${random}`)?.userId, userId);
    }
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
      'prt_1234567890123456_' + token.slice(-43),
      'prt__' + token.slice(-43),
      `prt_7_${token.slice(-42)}=`,
      ` ${token}`,
    ]) {
      assert.equal(parseResetToken(text), undefined, text);
    }
  });
});

describe('who is shown a reset token in the answer', () => {
  it('is only admin while the service mails resets', () => {
    assert.equal(mayBeShownResetToken(['admin'], true), true);
    for (const scope of ['reset-tokens', 'write', 'sign-in', 'read'] as const) {
      assert.equal(mayBeShownResetToken([scope], true), false, scope);
    }
  });

  it('is admin or reset-tokens while it does not, never write', () => {
    assert.equal(mayBeShownResetToken(['admin'], false), true);
    assert.equal(mayBeShownResetToken(['reset-tokens'], false), true);
    for (const scope of ['write', 'sign-in', 'read'] as const) {
      assert.equal(mayBeShownResetToken([scope], false), false, scope);
    }
  });
});

describe('reset links', () => {
  it('put the token, percent-encoded, wherever the page names {token}', () => {
    assert.equal(
      resetLink('https://example.com/reset/{token}?again={token}', 'a b&c/d'),
      'https://example.com/reset/a%20b%26c%2Fd?again=a%20b%26c%2Fd',
    );
  });

  it('are made of a PASSWORD_RESET_URL only when it is an absolute http(s) URL with {token} in it', () => {
    assert.equal(resetUrlProblem('https://example.com/reset?token={token}'), undefined);
    assert.equal(resetUrlProblem('http://localhost:3000/reset/{token}'), undefined);
    assert.equal(resetUrlProblem('https://example.com/reset'), 'has no {token} for the token to go in');
    assert.equal(resetUrlProblem('/reset/{token}'), 'is not an absolute URL');
    assert.equal(resetUrlProblem('ftp://example.com/{token}'), 'is not an http(s) URL');
    assert.equal(resetUrlProblem('mailto:reset@example.com?body={token}'), 'is not an http(s) URL');
  });

  it('are judged with a token in them, as they will be sent', () => {
    // Empty, {token} would leave no host here; with a token it is one.
    assert.equal(resetUrlProblem('https://{token}/'), undefined);
  });
});
