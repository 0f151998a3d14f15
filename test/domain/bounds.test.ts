/**
 * The bounds of any document a client sends, checked before its schema: long arrays and large
 * objects are one problem each (not one per item), and a problem's pointer is exact.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ITEMS, MAX_MEMBERS, shapeProblems } from '../../src/domain/bounds.js';
import { MAX_PROBLEMS } from '../../src/domain/validation.js';

describe('shapeProblems', () => {
  it('finds nothing in a document within bounds', () => {
    const document = { data: { attributes: { list: new Array(MAX_ITEMS).fill('x'), nested: { a: [{ b: 'c' }] } } } };
    assert.deepEqual(shapeProblems(document), []);
  });

  it('takes any JSON value as the document, null and scalars included, and no document at all', () => {
    for (const document of [null, 5, true, 'text', undefined])
      assert.deepEqual(shapeProblems(document), [], String(document));
    assert.deepEqual(shapeProblems('nul\u0000'), [
      { pointer: '', detail: 'must not contain NUL characters or unpaired surrogates' },
    ]);
  });

  it('answers one problem for an array of too many items, at the array, whatever it holds', () => {
    const document = { data: { attributes: { newsletters: { add: new Array(520_000).fill(0) } } } };
    assert.deepEqual(shapeProblems(document), [
      { pointer: '/data/attributes/newsletters/add', detail: `has too many items (maximum is ${MAX_ITEMS})` },
    ]);
  });

  it(`finds nothing in an object of exactly ${MAX_MEMBERS} members`, () => {
    const attributes = Object.fromEntries(Array.from({ length: MAX_MEMBERS }, (_, i) => [`k${i}`, i]));
    assert.deepEqual(shapeProblems({ data: { attributes } }), []);
  });

  it('answers one problem for an object of too many members', () => {
    const attributes = Object.fromEntries(Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => [`k${i}`, i]));
    assert.deepEqual(shapeProblems({ data: { attributes } }), [
      { pointer: '/data/attributes', detail: `has too many members (maximum is ${MAX_MEMBERS})` },
    ]);
  });

  it('points at text no store can keep, escaping the pointer as JSON Pointer does', () => {
    assert.deepEqual(shapeProblems({ 'a/b': [{ 'c~d': 'nul\u0000' }] }), [
      { pointer: '/a~1b/0/c~0d', detail: 'must not contain NUL characters or unpaired surrogates' },
    ]);
    assert.deepEqual(shapeProblems({ ['\ud800']: 1 }), [
      { pointer: '/\ud800', detail: 'member names must not contain NUL characters or unpaired surrogates' },
    ]);
  });

  it(`stops at ${MAX_PROBLEMS} problems`, () => {
    const document = { list: new Array(MAX_ITEMS).fill('\u0000') };
    assert.equal(shapeProblems(document).length, MAX_PROBLEMS);
  });

  it('walks 30,000 levels of nesting without recursion', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 30_000; i += 1) deep = [deep];
    assert.equal(shapeProblems({ deep }).length, 1);
  });
});
