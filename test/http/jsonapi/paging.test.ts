/**
 * Numbered paging as a rule (src/http/jsonapi/paging.ts): where a page starts, how deep a page by
 * number may start, when a page by number is refused because the list may stop short, and which
 * links a page carries. The user list's tests show the same through HTTP on every store.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/http/errors.js';
import { MAX_PAGE_OFFSET, numberedPaging, pageNumberOf, type PageUrl } from '../../../src/http/jsonapi/paging.js';

const url: PageUrl = (number, after) =>
  `/users?page[number]=${number}${after === undefined ? '' : `&page[after]=${after}`}`;

/** The code and parameter of the error `work` throws. */
function refusal(work: () => unknown): { code: string; parameter?: string } {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    const [problem] = error.errors;
    return { code: String(problem?.code), parameter: problem?.source?.parameter };
  }
  assert.fail('nothing was refused');
}

describe('numbered paging', () => {
  it('reads the page asked for by page[number] or page, the first when neither is sent', () => {
    assert.equal(pageNumberOf({}), 1);
    assert.equal(pageNumberOf({ page: '3' }), 3);
    assert.equal(pageNumberOf({ 'page[number]': '4' }), 4);
    assert.equal(pageNumberOf({ page: '4', 'page[number]': '4' }), 4);
  });

  it('refuses a page and a page[number] that disagree, at page', () => {
    assert.deepEqual(
      refusal(() => pageNumberOf({ page: '2', 'page[number]': '3' })),
      {
        code: 'INVALID_QUERY_PARAMETER',
        parameter: 'page',
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

  it('links a previous page only where it may be asked for by number', () => {
    const deepest = MAX_PAGE_OFFSET / 100;
    const query = { 'page[number]': String(deepest + 1), 'page[after]': '1' };
    assert.equal(numberedPaging(query, 100).links('/self', url, { count: 1 }, '2').prev, url(deepest));
    const beyond = { 'page[number]': String(deepest + 2), 'page[after]': '1' };
    assert.equal(numberedPaging(beyond, 100).links('/self', url, { count: 1 }, '2').prev, undefined);
  });
});
