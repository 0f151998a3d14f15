import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CatalogueId, newCatalogueId, newsletterPointer, resolveReferences } from '../../src/domain/catalogue.js';
import { DomainFailure } from '../../src/domain/failures.js';
import { compileSchema } from '../../src/domain/validation.js';

const isCatalogueId = compileSchema(CatalogueId);

describe('catalogue ids', () => {
  it('are 1 to 64 letters, digits, dots, underscores and hyphens', () => {
    for (const id of ['123', 'daily', 'Print.Weekend_2-x', 'x'.repeat(64), '.x', '...'])
      assert.ok(isCatalogueId(id), id);
    for (const id of ['', 'x'.repeat(65), 'with space', 'a/b', 'ünï', 'a\u0000']) assert.ok(!isCatalogueId(id), id);
  });

  it('are not . or .., which URL parsers remove from a path', () => {
    for (const id of ['.', '..']) assert.ok(!isCatalogueId(id), id);
  });

  it('are drawn at random, in the pattern, when the service assigns them', () => {
    const ids = new Set(Array.from({ length: 1000 }, newCatalogueId));
    assert.equal(ids.size, 1000);
    for (const id of ids) assert.ok(isCatalogueId(id), id);
  });
});

describe('resolveReferences', () => {
  const refs = (...ids: string[]) => ids.map((id, i) => ({ id, pointer: `/p/${i}` }));
  const refused = (run: () => unknown, code: string, pointers: string[]) =>
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof DomainFailure);
      assert.equal(error.code, code);
      assert.deepEqual(
        error.problems.map((p) => p.pointer),
        pointers,
      );
      return true;
    });

  it('registers the unknown ids, each once and in order, when references are not strict', () => {
    const found = new Map([['known', true]]);
    assert.deepEqual(resolveReferences('products', refs('b', 'known', 'a', 'b'), found, false), ['a', 'b']);
  });

  it('refuses the unknown ids at their first pointers when references are strict', () => {
    refused(
      () => resolveReferences('newsletters', refs('x', 'known', 'y', 'x'), new Map([['known', true]]), true),
      'UNKNOWN_REFERENCE',
      ['/p/0', '/p/2'],
    );
  });

  it('refuses inactive records in either mode', () => {
    for (const strict of [false, true]) {
      refused(
        () =>
          resolveReferences(
            'products',
            refs('on', 'off'),
            new Map([
              ['on', true],
              ['off', false],
            ]),
            strict,
          ),
        'INACTIVE_REFERENCE',
        ['/p/1'],
      );
    }
  });
});

describe('what a refused reference says', () => {
  it('names the record by its kind and id, at its pointer', () => {
    const problems = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof DomainFailure);
        return error.problems;
      }
      assert.fail('not refused');
    };
    assert.deepEqual(
      problems(() => resolveReferences('products', [{ id: 'daily', pointer: '/p' }], new Map(), true)),
      [{ pointer: '/p', detail: 'there is no product daily' }],
    );
    assert.deepEqual(
      problems(() =>
        resolveReferences('newsletters', [{ id: 'offers', pointer: '/q' }], new Map([['offers', false]]), false),
      ),
      [{ pointer: '/q', detail: 'newsletter offers is inactive: it cannot be attached' }],
    );
  });

  it("names the newsletter added by its place in the user's list", () => {
    assert.equal(newsletterPointer(2), '/data/attributes/newsletters/add/2');
  });
});
