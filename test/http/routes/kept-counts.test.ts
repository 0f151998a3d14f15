/**
 * Counts kept for a maximum age (src/http/routes/kept-counts.ts): what the dashboard's report and
 * a date's draw answer from between two counts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keptCounts } from '../../../src/http/routes/kept-counts.js';

/** A count that answers how many times it has been made. */
function counter() {
  let made = 0;
  return { count: async () => ++made, made: () => made };
}

describe('counts kept for a maximum age', () => {
  it('are answered again while younger than the age, and counted anew once as old', async () => {
    const kept = keptCounts<number>(60, 4);
    const { count } = counter();
    assert.equal(await kept('d', 1000, count), 1);
    assert.equal(await kept('d', 1059, count), 1);
    assert.equal(await kept('d', 1060, count), 2);
    assert.equal(await kept('d', 1119, count), 2);
  });

  it('are counted each time with an age of 0', async () => {
    const kept = keptCounts<number>(0, 4);
    const { count } = counter();
    assert.equal(await kept('d', 1000, count), 1);
    assert.equal(await kept('d', 1000, count), 2);
  });

  it('share one count among the requests that come while it runs', async () => {
    const kept = keptCounts<number>(60, 4);
    const { count, made } = counter();
    const answers = await Promise.all([kept('d', 1000, count), kept('d', 1000, count), kept('d', 1001, count)]);
    assert.deepEqual(answers, [1, 1, 1]);
    assert.equal(made(), 1);
  });

  it('are kept apart by key', async () => {
    const kept = keptCounts<string>(60, 4);
    assert.equal(await kept('a', 1000, async () => 'of a'), 'of a');
    assert.equal(await kept('b', 1000, async () => 'of b'), 'of b');
    assert.equal(await kept('a', 1001, async () => 'again'), 'of a');
  });

  it('forget a count that failed, so the next request counts again', async () => {
    const kept = keptCounts<number>(60, 4);
    await assert.rejects(kept('d', 1000, async () => Promise.reject(new Error('the store is gone'))));
    assert.equal(await kept('d', 1001, async () => 7), 7);
  });

  it('keep at most as many keys as given, the one counted first going first', async () => {
    const kept = keptCounts<string>(60, 2);
    for (const key of ['a', 'b', 'c']) await kept(key, 1000, async () => `${key} first`);
    assert.equal(await kept('b', 1001, async () => 'b again'), 'b first');
    assert.equal(await kept('c', 1001, async () => 'c again'), 'c first');
    assert.equal(await kept('a', 1001, async () => 'a again'), 'a again');
  });
});
