/**
 * What a process keeps of PostgreSQL's records (store/postgres/notified-cache.ts): reads of a key
 * that find nothing kept share one load of the store, so that what ages out under load is read
 * once, not by every request arriving meanwhile; a read begun after a change waits for a load of
 * its own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeListener } from '../../src/store/postgres/change-listener.js';
import type { PostgresDatabase } from '../../src/store/postgres/database.js';
import { NotifiedCache } from '../../src/store/postgres/notified-cache.js';

/** A listener that always listens and hears only what a test tells it. */
function listener(): ChangeListener & { tell(): void } {
  const heard: (() => void)[] = [];
  return {
    listening: true,
    on: (_channel, call) => void heard.push(call),
    start() {},
    close: async () => {},
    tell: () => heard.forEach((call) => call()),
  };
}

/** A load whose answer the test gives, counting how often it ran. */
function pendingLoads() {
  const answers: ((value: string) => void)[] = [];
  return {
    load: () => new Promise<string>((resolve) => answers.push(resolve)),
    get started() {
      return answers.length;
    },
    answer: (index: number, value: string) => answers[index]?.(value),
  };
}

const cacheOf = (changes: ChangeListener) =>
  new NotifiedCache<string>({} as PostgresDatabase, changes, 'channel', 60_000);

describe('NotifiedCache', () => {
  it('runs one load for reads of a key that arrive while it is under way, and gives each its answer', async () => {
    const cache = cacheOf(listener());
    const loads = pendingLoads();
    const reads = Array.from({ length: 50 }, () => cache.read('key', loads.load));
    assert.equal(loads.started, 1);
    loads.answer(0, 'found');
    assert.deepEqual(new Set(await Promise.all(reads)), new Set(['found']));
    assert.equal(await cache.read('key', loads.load), 'found');
    assert.equal(loads.started, 1, 'what the load found was kept');
  });

  it('loads each key apart', async () => {
    const cache = cacheOf(listener());
    const loads = pendingLoads();
    const reads = [cache.read('a', loads.load), cache.read('b', loads.load)];
    assert.equal(loads.started, 2);
    loads.answer(0, 'A');
    loads.answer(1, 'B');
    assert.deepEqual(await Promise.all(reads), ['A', 'B']);
  });

  it('gives a read begun after a change a load of its own, and keeps only what that one found', async () => {
    const changes = listener();
    const cache = cacheOf(changes);
    const loads = pendingLoads();
    const before = cache.read('key', loads.load);
    changes.tell();
    const after = cache.read('key', loads.load);
    assert.equal(loads.started, 2);
    loads.answer(0, 'old');
    loads.answer(1, 'new');
    assert.equal(await before, 'old');
    assert.equal(await after, 'new');
    assert.equal(await cache.read('key', loads.load), 'new');
    assert.equal(loads.started, 2);
  });

  it('loads again after a load that failed', async () => {
    const cache = cacheOf(listener());
    let calls = 0;
    const failing = () => Promise.reject(new Error(`down ${++calls}`));
    await assert.rejects(Promise.all([cache.read('key', failing), cache.read('key', failing)]), /down 1/);
    assert.equal(calls, 1);
    assert.equal(await cache.read('key', async () => 'back'), 'back');
  });
});
