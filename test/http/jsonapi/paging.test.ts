/**
 * Paging as a rule (src/http/jsonapi/paging.ts): which page sizes and cursors a query may send,
 * the page and the next link of a cursor list, where a page by number starts, how deep it may
 * start, when it is refused because the list may stop short, and which links a page carries. The
 * feeds' and the user list's tests show the same through HTTP on every store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { ApiError } from '../../../src/http/errors.js';
import {
  CursorLinks,
  cursorPage,
  MAX_PAGE_OFFSET,
  MAX_PAGE_SIZE,
  numberedPaging,
  PageAfter,
  pageNumberOf,
  PageSize,
  pageSizeOf,
  type PageUrl,
} from '../../../src/http/jsonapi/paging.js';
import { validatorCompiler } from '../../../src/http/plugins/validation.js';

const url: PageUrl = (number, after) =>
  `/users?page[number]=${number}${after === undefined ? '' : `&page[after]=${after}`}`;

/** The code and parameter of the error `work` throws. */
function refusal(work: () => unknown): { code: string; parameter?: string } {
  const { code, parameter } = problemOf(work);
  return { code, parameter };
}

/** The code, parameter and detail of the error `work` throws. */
function problemOf(work: () => unknown): { code: string; parameter?: string; detail?: string } {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    const [problem] = error.errors;
    return { code: String(problem?.code), parameter: problem?.source?.parameter, detail: problem?.detail };
  }
  assert.fail('nothing was refused');
}

/** A feed's query as the routes validate it: the detail of its refusal, or undefined when taken. */
function queryRefusal(query: Record<string, string>): string | undefined {
  const schema = Type.Object({ 'page[size]': PageSize, 'page[after]': PageAfter('an event') });
  const validate = validatorCompiler({ schema, httpPart: 'querystring', method: 'GET', url: '/events' });
  const result = validate(query) as { error?: ApiError };
  return result.error?.errors[0]?.detail;
}

describe('cursor paging', () => {
  it('takes a page[size] from 1 to 100, and refuses 0, 101 and what is no whole number, saying so', () => {
    for (const size of ['1', '9', '10', '99', '100'])
      assert.equal(queryRefusal({ 'page[size]': size }), undefined, size);
    for (const size of ['0', '101', '1000', '01', '1.5', '', ' 5']) {
      assert.equal(queryRefusal({ 'page[size]': size }), 'page[size] must be a whole number from 1 to 100', size);
    }
  });

  it('takes a page[after] of up to 15 digits, and refuses a longer one or no number, naming what it is', () => {
    for (const after of ['0', '7', '9'.repeat(15)]) assert.equal(queryRefusal({ 'page[after]': after }), undefined);
    for (const after of ['9'.repeat(16), '', 'x7', '-1']) {
      assert.equal(queryRefusal({ 'page[after]': after }), 'page[after] must be the id of an event', after);
    }
  });

  it('reads the page size sent, the largest when none is', () => {
    assert.equal(pageSizeOf({ 'page[size]': '7' }), 7);
    assert.equal(pageSizeOf({}), MAX_PAGE_SIZE);
  });

  it('answers a page of the size asked, and links the next past its last id, every other parameter as sent', () => {
    const fetched = [{ id: '3' }, { id: '5' }, { id: '8' }, { id: '13' }];
    const query = { 'filter[type]': 'user.created', 'page[after]': '2', 'page[size]': '3', empty: undefined };
    const { page, links } = cursorPage(fetched, 3, 'https://api.example', '/events', query);
    assert.deepEqual(page, fetched.slice(0, 3));
    assert.deepEqual(links, {
      self: 'https://api.example/events?filter%5Btype%5D=user.created&page%5Bafter%5D=2&page%5Bsize%5D=3',
      next: 'https://api.example/events?filter%5Btype%5D=user.created&page%5Bsize%5D=3&page%5Bafter%5D=8',
    });
  });

  it('links no next page when no more than a page was read', () => {
    for (const fetched of [[{ id: '3' }, { id: '5' }], [{ id: '3' }], []]) {
      const { page, links } = cursorPage(fetched, 2, 'https://api.example', '/events', {});
      assert.deepEqual(page, fetched);
      assert.deepEqual(links, { self: 'https://api.example/events' });
    }
  });

  it('describes links that always have self, and next only when another page follows', () => {
    const valid = new Ajv({ strict: false }).compile(CursorLinks);
    assert.ok(valid({ self: 'https://api.example/events' }));
    assert.ok(valid({ self: 'https://api.example/events', next: 'https://api.example/events?page%5Bafter%5D=8' }));
    assert.ok(!valid({}));
    assert.ok(!valid({ next: 'https://api.example/events?page%5Bafter%5D=8' }));
  });
});

describe('numbered paging', () => {
  it('reads the page asked for by page[number] or page, the first when neither is sent', () => {
    assert.equal(pageNumberOf({}), 1);
    assert.equal(pageNumberOf({ page: '3' }), 3);
    assert.equal(pageNumberOf({ 'page[number]': '4' }), 4);
    assert.equal(pageNumberOf({ page: '4', 'page[number]': '4' }), 4);
  });

  it('refuses a page and a page[number] that disagree, at page, saying to send one', () => {
    assert.deepEqual(
      problemOf(() => pageNumberOf({ page: '2', 'page[number]': '3' })),
      {
        code: 'INVALID_QUERY_PARAMETER',
        parameter: 'page',
        detail: 'page and page[number] disagree; send one of them',
      },
    );
  });

  it('starts a page by number at its offset, and a page past a cursor at the cursor', () => {
    assert.equal(numberedPaging({ 'page[number]': '3' }, 25).offset, 50);
    assert.equal(numberedPaging({ 'page[number]': '3', 'page[after]': '99' }, 25).offset, 0);
  });

  it('takes a page by number starting just inside the deepest offset, and refuses one starting at it', () => {
    assert.equal(numberedPaging({ 'page[number]': String(MAX_PAGE_OFFSET / 100) }, 100).offset, MAX_PAGE_OFFSET - 100);
    assert.deepEqual(
      refusal(() => numberedPaging({ 'page[number]': String(MAX_PAGE_OFFSET / 100 + 1) }, 100)),
      {
        code: 'PAGE_TOO_DEEP',
        parameter: 'page[number]',
      },
    );
    assert.deepEqual(
      refusal(() => numberedPaging({ page: String(MAX_PAGE_OFFSET + 1) }, 1)),
      {
        code: 'PAGE_TOO_DEEP',
        parameter: 'page',
      },
    );
  });

  it('refuses a page by number past the first of a list that stopped short, and nothing else', () => {
    const stopped = { count: 3, readTo: '500', mayStopShort: true };
    assert.deepEqual(
      refusal(() => numberedPaging({ 'page[number]': '2' }, 10).refuseShort(stopped)),
      {
        code: 'PAGE_TOO_SPARSE',
        parameter: 'page[number]',
      },
    );
    numberedPaging({ 'page[number]': '1' }, 10).refuseShort(stopped);
    numberedPaging({ 'page[number]': '2', 'page[after]': '9' }, 10).refuseShort(stopped);
    numberedPaging({ 'page[number]': '2' }, 10).refuseShort({ count: 3, mayStopShort: true });
  });

  it('links the first page and the next past the last id when one more than a page was read', () => {
    const links = numberedPaging({}, 2).links('/self', url, { count: 3 }, '7');
    assert.deepEqual(links, { self: '/self', first: url(1), next: url(2, '7') });
  });

  it('links no next page when the page is the last, and the previous of a page past the first', () => {
    const links = numberedPaging({ 'page[number]': '2' }, 2).links('/self', url, { count: 2 }, '7');
    assert.deepEqual(links, { self: '/self', first: url(1), prev: url(1) });
  });

  it('links the next page past where a read that stopped short stopped', () => {
    const links = numberedPaging({}, 2).links('/self', url, { count: 1, readTo: '40', mayStopShort: true }, '7');
    assert.deepEqual(links.next, url(2, '40'));
  });

  it('links no previous page reached by links.next of a list that may stop short, but one of a list that may not', () => {
    const query = { 'page[number]': '3', 'page[after]': '20' };
    assert.equal(numberedPaging(query, 2).links('/self', url, { count: 2, mayStopShort: true }, '24').prev, undefined);
    assert.equal(numberedPaging(query, 2).links('/self', url, { count: 2 }, '24').prev, url(2));
  });

  it('links the previous page asked for by number of a list that may stop short', () => {
    const links = numberedPaging({ 'page[number]': '3' }, 2).links(
      '/self',
      url,
      { count: 2, mayStopShort: true },
      '24',
    );
    assert.equal(links.prev, url(2));
  });

  it('links a previous page only where it may be asked for by number', () => {
    const deepest = MAX_PAGE_OFFSET / 100;
    const query = { 'page[number]': String(deepest + 1), 'page[after]': '1' };
    assert.equal(numberedPaging(query, 100).links('/self', url, { count: 1 }, '2').prev, url(deepest));
    const beyond = { 'page[number]': String(deepest + 2), 'page[after]': '1' };
    assert.equal(numberedPaging(beyond, 100).links('/self', url, { count: 1 }, '2').prev, undefined);
  });
});
