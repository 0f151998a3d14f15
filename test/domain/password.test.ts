/**
 * Passwords: NFC before hashing and verifying, the hashes of other systems verified, a rehash
 * wanted for anything but today's argon2id, imported hashes checked, common passwords known, and
 * hashing that waits its turn but not past its deadline.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, it, mock } from 'node:test';
import { hash as argon2Hash } from '@node-rs/argon2';
import { hash as bcryptHash } from 'bcrypt';
import { dictionary } from '@zxcvbn-ts/language-common';
import {
  hashPassword,
  HashDeadlineExceeded,
  isCommonPassword,
  MAX_CONCURRENT_HASHES,
  needsRehash,
  notBeforeFloor,
  passwordHashProblem,
  verifyPassword,
} from '../../src/domain/password.js';

const COMPOSED = 'Am\u00e9lie a la plage'; // é as one code point (NFC)
const DECOMPOSED = 'Ame\u0301lie a la plage'; // e and a combining acute accent (NFD)

describe('hashPassword and verifyPassword', () => {
  it('make argon2id hashes that verify the password and no other', async () => {
    const hash = await hashPassword('a password to hash');
    assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await verifyPassword(hash, 'a password to hash'), true);
    assert.equal(await verifyPassword(hash, 'a password to hasH'), false);
  });

  it('take the same password typed composed (NFC) or decomposed (NFD) as the same', async () => {
    assert.notEqual(COMPOSED, DECOMPOSED);
    assert.equal(await verifyPassword(await hashPassword(COMPOSED), DECOMPOSED), true);
    assert.equal(await verifyPassword(await hashPassword(DECOMPOSED), COMPOSED), true);
  });

  it('verify bcrypt hashes of every prefix taken, normalising the password', async () => {
    const made = await bcryptHash(COMPOSED, 4);
    for (const prefix of ['$2a$', '$2b$', '$2y$']) {
      const hash = prefix + made.slice(4);
      assert.equal(await verifyPassword(hash, DECOMPOSED), true, prefix);
      assert.equal(await verifyPassword(hash, 'not it'), false, prefix);
    }
  });

  it('verify argon2 hashes of older parameters and variants', async () => {
    const argon2i = await argon2Hash('older', { algorithm: 1, memoryCost: 4096, timeCost: 3 });
    assert.match(argon2i, /^\$argon2i\$/);
    assert.equal(await verifyPassword(argon2i, 'older'), true);
    assert.equal(await verifyPassword(argon2i, 'newer'), false);
  });

  it('answer false, never throw, for a stored hash they cannot read', async () => {
    assert.equal(await verifyPassword('$argon2id$garbage', 'anything'), false);
    assert.equal(await verifyPassword('$2b$10$garbage', 'anything'), false);
    assert.equal(await verifyPassword('plain text', 'plain text'), false);
  });

  it('answer false without a stored hash, after verifying as long as with one', async () => {
    const hash = await hashPassword('some password');
    await verifyPassword(null, 'warm up the dummy');
    const time = async (stored: string | null) => {
      const started = performance.now();
      assert.equal(await verifyPassword(stored, 'a wrong password'), false);
      return performance.now() - started;
    };
    const withHash: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      withHash.push(await time(hash));
      without.push(await time(null));
    }
    // Not a timing test (the API's is): the dummy is verified at all, so it costs a hash's time.
    assert.ok(Math.min(...without) > Math.min(...withHash) / 3, `${without} vs ${withHash}`);
  });
});

/** A PHC string of these parameters (and a hash of `outputBytes`): the checks read them, never run the hash. */
const phc = ({ v = 19, m = 19_456, t = 2, p = 1, outputBytes = 32 } = {}) =>
  `$argon2id$v=${v}$m=${m},t=${t},p=${p}$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(Math.ceil((outputBytes * 4) / 3))}`;

describe('needsRehash', () => {
  it('is false for an argon2id hash made today', async () => {
    assert.equal(needsRehash(await hashPassword('today')), false);
    assert.equal(needsRehash(phc()), false);
  });

  it('is true for an argon2id hash that differs from today in one parameter alone, weaker or dearer', () => {
    for (const [name, parameters] of [
      ['older version 0x10', { v: 16 }],
      ['less memory', { m: 19_455 }],
      ['more memory', { m: 19_457 }],
      ['fewer passes', { t: 1 }],
      ['more passes', { t: 3 }],
      ['more lanes', { p: 2 }],
      ['a shorter hash', { outputBytes: 16 }],
    ] as const) {
      assert.equal(needsRehash(phc(parameters)), true, name);
    }
  });

  it('is true for an argon2id hash it cannot read', () => {
    assert.equal(needsRehash('$argon2id$garbage'), true);
  });

  it('is true for bcrypt, other argon2 variants and argon2id of other parameters', async () => {
    assert.equal(needsRehash(await bcryptHash('x', 4)), true);
    assert.equal(needsRehash(await argon2Hash('x', { algorithm: 1 })), true);
    assert.equal(needsRehash(await argon2Hash('x', { memoryCost: 4096, timeCost: 3 })), true);
    assert.equal(needsRehash(await argon2Hash('x', { parallelism: 2 })), true);
  });
});

describe('passwordHashProblem', () => {
  it('takes bcrypt ($2a$, $2b$, $2y$) and argon2 (id, i, d) hashes', async () => {
    const bcrypt = await bcryptHash('x', 4);
    for (const prefix of ['$2a$', '$2b$', '$2y$'])
      assert.equal(passwordHashProblem(prefix + bcrypt.slice(4)), undefined);
    for (const algorithm of [0, 1, 2] as const) {
      assert.equal(passwordHashProblem(await argon2Hash('x', { algorithm, memoryCost: 4096 })), undefined);
    }
  });

  it('refuses what is not such a hash, saying which it must be', async () => {
    const bcrypt = await bcryptHash('x', 4);
    for (const text of [
      '',
      'secret',
      '$2x$' + bcrypt.slice(4),
      bcrypt.slice(0, -1),
      '$argon2id$v=19$m=1$x$y',
      '$1$md5',
      // A bcrypt prefix before a whole bcrypt hash: the hash must be all of it.
      '$2b$04$' + bcrypt,
    ]) {
      assert.equal(passwordHashProblem(text), 'must be a bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC string) hash', text);
    }
  });

  // A PHC string of these parameters: the check reads them, never runs the hash.
  const argon2Of = (m: number, t: number, p: number) =>
    `$argon2id$v=19$m=${m},t=${t},p=${p}$c2FsdHNhbHRzYWx0c2FsdA$${'A'.repeat(43)}`;

  it('takes argon2 hashes at the bounds: 64 MiB, 10 passes, 16 lanes', () => {
    assert.equal(passwordHashProblem(argon2Of(65_536, 10, 16)), undefined);
    assert.equal(passwordHashProblem(argon2Of(65_535, 1, 1)), undefined);
  });

  it('takes an argon2 hash at any one bound, the others low', () => {
    for (const [m, t, p] of [
      [65_536, 1, 1],
      [4_096, 10, 1],
      [4_096, 1, 16],
    ] as const) {
      assert.equal(passwordHashProblem(argon2Of(m, t, p)), undefined, `${m} ${t} ${p}`);
    }
  });

  it('refuses an argon2 hash over any one bound, however low the others', () => {
    for (const [m, t, p] of [
      [65_537, 1, 1],
      [786_432, 1, 1],
      [4_096, 11, 1],
      [4_096, 1, 17],
    ] as const) {
      assert.match(
        passwordHashProblem(argon2Of(m, t, p)) ?? '',
        /above 64 MiB, 10 passes or 16 lanes/,
        `${m} ${t} ${p}`,
      );
    }
  });

  it('takes a bcrypt hash at cost 14, the bound, and refuses cost 15', async () => {
    const bcrypt = await bcryptHash('x', 4);
    assert.equal(passwordHashProblem(bcrypt.replace('$04$', '$14$')), undefined);
    assert.equal(passwordHashProblem(bcrypt.replace('$04$', '$15$')), 'has a bcrypt cost above 14');
  });

  it("takes bcrypt's least cost, 4, and refuses a cost below it or above 31 as no bcrypt hash", async () => {
    const bcrypt = await bcryptHash('x', 4);
    assert.equal(passwordHashProblem(bcrypt), undefined);
    for (const cost of ['03', '32', '99']) {
      assert.equal(
        passwordHashProblem(bcrypt.replace('$04$', `$${cost}$`)),
        'must be a bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC string) hash',
        cost,
      );
    }
    // 31 is a cost bcrypt has, only above ours.
    assert.equal(passwordHashProblem(bcrypt.replace('$04$', '$31$')), 'has a bcrypt cost above 14');
    assert.equal(
      passwordHashProblem(`${bcrypt}x`),
      'must be a bcrypt ($2a$, $2b$, $2y$) or argon2 (PHC string) hash',
      'a character past its end',
    );
  });

  it('says which argon2 bounds a refused hash is over', () => {
    assert.equal(
      passwordHashProblem(argon2Of(65_537, 1, 1)),
      'has argon2 parameters above 64 MiB, 10 passes or 16 lanes',
    );
  });
});

describe('isCommonPassword', () => {
  it('knows the 10,000 most common passwords of the list, in any letter case', () => {
    const list = dictionary['passwords-common'];
    for (const common of [list[0], list[1], list[9_999], 'PassWord', 'iloveyou']) {
      assert.equal(isCommonPassword(common as string), true, common);
    }
  });

  it('knows no password beyond the first 10,000 of the list, nor an uncommon one', () => {
    const beyond = dictionary['passwords-common']
      .slice(10_000)
      .find((p) => !dictionary['passwords-common'].slice(0, 10_000).includes(p));
    assert.equal(isCommonPassword(beyond as string), false);
    assert.equal(isCommonPassword('correct horse battery'), false);
  });
});

describe('notBeforeFloor', () => {
  it('resolves no sooner than the floor after the start it is given', async () => {
    const startedAt = performance.now();
    await notBeforeFloor(startedAt, 30);
    assert.ok(performance.now() - startedAt >= 30);
  });

  it('waits what is left of the floor, and again when its timer fires early by the clock it measures', async () => {
    // The clock reads 1000 at the start, 1025 when the first timer fires (5 ms early), then 1030.
    const readings = [1000, 1025, 1030];
    let reads = 0;
    const waits: number[] = [];
    const now = mock.method(performance, 'now', () => readings[Math.min(reads++, readings.length - 1)] as number);
    const timer = mock.method(globalThis, 'setTimeout', (resolve: () => void, ms: number) => {
      waits.push(ms);
      queueMicrotask(resolve);
    });
    try {
      await notBeforeFloor(1000, 30);
    } finally {
      now.mock.restore();
      timer.mock.restore();
    }
    assert.deepEqual(waits, [30, 5]);
  });
});

describe('hashPassword under load', () => {
  it('runs one hash fewer at a time than there are cores, and at least one', () => {
    assert.equal(MAX_CONCURRENT_HASHES, Math.max(1, availableParallelism() - 1));
  });

  it('names the refusal of a hash that could not start before its deadline, and why', () => {
    const refusal = new HashDeadlineExceeded();
    assert.equal(refusal.name, 'HashDeadlineExceeded');
    assert.match(refusal.message, /before its deadline/);
  });

  it('gives up, hashing nothing, when no slot frees before its deadline', async () => {
    const busy = Array.from({ length: MAX_CONCURRENT_HASHES }, (_, i) => hashPassword(`occupying ${i}`));
    await assert.rejects(hashPassword('too late', { deadline: Date.now() + 1 }), HashDeadlineExceeded);
    const queued = hashPassword('in time', { deadline: Date.now() + 60_000 });
    await Promise.all(busy);
    assert.match(await queued, /^\$argon2id\$/);
  });

  it('starts a credentialed check before a public one that has waited longer', async () => {
    const stored = await hashPassword('the password');
    const busy = Array.from({ length: MAX_CONCURRENT_HASHES }, (_, i) => hashPassword(`occupying ${i}`));
    const finished: string[] = [];
    const publicCheck = verifyPassword(stored, 'the password', { queue: 'public' }).then(() => finished.push('public'));
    const credentialed = verifyPassword(stored, 'the password').then(() => finished.push('credentialed'));
    await Promise.all([...busy, publicCheck, credentialed]);
    assert.deepEqual(finished, ['credentialed', 'public']);
  });

  it('gives up a check, with or without a stored hash, when no slot frees before its deadline', async () => {
    const stored = await hashPassword('the password');
    await verifyPassword(null, 'the password'); // makes the dummy hash it checks against when there is none
    const busy = Array.from({ length: MAX_CONCURRENT_HASHES }, (_, i) => hashPassword(`occupying ${i}`));
    await assert.rejects(verifyPassword(stored, 'the password', { deadline: Date.now() + 1 }), HashDeadlineExceeded);
    await assert.rejects(verifyPassword(null, 'the password', { deadline: Date.now() + 1 }), HashDeadlineExceeded);
    await Promise.all(busy);
    assert.equal(await verifyPassword(stored, 'the password', { deadline: Date.now() + 60_000 }), true);
  });
});
