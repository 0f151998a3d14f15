import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchKey, searchRange, successor } from '../../src/domain/search.js';

describe('searchKey', () => {
  it('lower-cases, drops accents and folds white space', () => {
    assert.equal(searchKey('Müller'), 'muller');
    assert.equal(searchKey('  ÅSA  de   la Peña '), 'asa de la pena');
    assert.equal(searchKey('Zoë'), searchKey('ZOE'));
  });

  it('meets the capital forms of ß, dotless ı, final sigma and full-width letters', () => {
    assert.equal(searchKey('Straße'), searchKey('STRASSE'));
    assert.equal(searchKey('Yıldız'), searchKey('YILDIZ'));
    assert.equal(searchKey('Παπαστράτος'), searchKey('ΠΑΠΑΣΤΡΑΤΟΣ'));
    assert.ok(searchKey('Παπαστράτος')?.startsWith(searchKey('ΠΑΠΑΣ') as string));
    assert.equal(searchKey('Ｍüller'), 'muller');
  });

  it('has no key for no name', () => {
    assert.equal(searchKey(null), null);
    assert.equal(searchKey('   '), null);
  });
});

describe('successor', () => {
  it('is after every string the prefix starts and before every other after the prefix', () => {
    const to = successor('mul');
    assert.equal(to, 'mum');
    for (const key of ['mul', 'muller', 'mul\u{10ffff}\u{10ffff}']) assert.ok(key >= 'mul' && key < to, key);
    assert.ok(!('mum' < to));
  });

  it('skips the surrogates and carries past the last code point', () => {
    assert.equal(successor('a\ud7ff'), 'a\ue000');
    assert.equal(successor('a\u{10ffff}'), 'b');
  });
});

describe('searchRange', () => {
  it('matches names whole below three characters, and by their start from three on', () => {
    assert.equal(searchRange('Li')?.whole, true);
    assert.equal(searchRange(' ø ')?.whole, true);
    assert.equal(searchRange('Lin')?.whole, false);
  });

  it('matches an id only when the text can be one', () => {
    assert.equal(searchRange('1234')?.id, '1234');
    assert.equal(searchRange('0123')?.id, undefined);
    assert.equal(searchRange(' C-1 ')?.exact, 'C-1');
    assert.equal(searchRange(' \t '), undefined);
  });
});
