/**
 * Password hashing waits its turn, but not past its deadline: a request that could not start
 * its hash in time gives up with nothing hashed, so that it writes nothing after its deadline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hashPassword,
  HashDeadlineExceeded,
  MAX_CONCURRENT_HASHES,
  verifyPassword,
} from '../../src/domain/password.js';

describe('hashPassword', () => {
  it('hashes with argon2id, verifiably', async () => {
    const hashed = await hashPassword('correct horse battery');
    assert.match(hashed, /^\$argon2id\$/);
    assert.equal(await verifyPassword(hashed, 'correct horse battery'), true);
  });

  it('gives up, hashing nothing, when no slot frees before its deadline', async () => {
    const busy = Array.from({ length: MAX_CONCURRENT_HASHES }, (_, i) => hashPassword(`occupying ${i}`));
    await assert.rejects(hashPassword('too late', Date.now() + 1), HashDeadlineExceeded);
    const queued = hashPassword('in time', Date.now() + 60_000);
    await Promise.all(busy);
    assert.match(await queued, /^\$argon2id\$/);
  });
});
