/**
 * "Did you mean …?": the known word nearest to a typo, when it is near enough to be one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { didYouMean, editDistance, nearest } from '../../src/domain/suggestion.js';

const COMMANDS = ['serve', 'migrate', 'keys', 'staff', 'import', 'export', 'seed', 'lapse', 'prune'];

describe('the nearest word to a typo', () => {
  it('counts two neighbours swapped as one edit, like a letter added, dropped or changed', () => {
    assert.deepEqual(
      [editDistance('exprot', 'export'), editDistance('exort', 'export'), editDistance('exxport', 'export')],
      [1, 1, 1],
    );
    assert.equal(editDistance('', 'keys'), 4);
    assert.equal(editDistance('keys', ''), 4);
  });

  it('counts a swap only of the two same letters: one matching letter across is two edits', () => {
    assert.deepEqual([editDistance('ax', 'xa'), editDistance('ax', 'ya'), editDistance('xa', 'ay')], [1, 2, 2]);
    assert.deepEqual([editDistance('kexs', 'keys'), editDistance('exprot', 'exprto')], [1, 1]);
  });

  for (const [typed, meant] of [
    ['exprot', 'export'],
    ['kyes', 'keys'],
    ['Export', 'export'],
    ['migrat', 'migrate'],
    ['imprt', 'import'],
    ['sevre', 'serve'],
  ] as const) {
    it(`suggests ${meant} for ${typed}`, () => assert.equal(nearest(typed, COMMANDS), meant));
  }

  it('forgives one edit in a word of four letters, and not two', () => {
    assert.equal(nearest('kexs', COMMANDS), 'keys');
    assert.equal(nearest('kexz', COMMANDS), undefined);
  });

  it('forgives two edits in a word of five letters or more, and not three', () => {
    assert.equal(nearest('mgrte', ['migrate']), 'migrate');
    assert.equal(nearest('mxgrxte', ['migrate']), 'migrate');
    assert.equal(nearest('mgrt', ['migrate']), undefined);
    assert.equal(nearest('mxgrxtx', ['migrate']), undefined);
  });

  it('suggests nothing for a word unlike any, and the first of equally near ones', () => {
    assert.equal(nearest('backup-now', COMMANDS), undefined);
    assert.equal(nearest('sxxd', ['seed', 'send']), undefined);
    assert.equal(nearest('sexd', ['seed', 'send']), 'seed');
  });

  it('words the suggestion to follow a message, or adds nothing', () => {
    assert.equal(didYouMean('exprot', COMMANDS), ' (did you mean export?)');
    assert.equal(didYouMean('frobnicate', COMMANDS), '');
  });
});
