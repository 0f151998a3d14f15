/**
 * How a page of the user list is read (readUserPage, src/store/sql/users.ts), with a reader that
 * answers what each test says instead of a database: when one statement is the page, when a walked
 * page that came short is read again up to the user at the read limit and says so (`readTo`), and
 * when readers with a name one typo from a search follow its matches. The statements' text is in
 * test/store/query-snapshots.test.ts; what the stores answer, in the user list's HTTP tests.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchRange } from '../../src/domain/search.js';
import type { UserListQuery } from '../../src/store/ports/users.js';
import { raw, type Sql } from '../../src/store/sql/builder.js';
import { productsOfPage, readUserPage, type PageReader, type SimilarNames } from '../../src/store/sql/users.js';

type User = { id: string };
const users = (...ids: number[]): User[] => ids.map((id) => ({ id: String(id) }));

/** A reader answering `pages` to its statements in turn, and `readTo` as the user at the read limit. */
function readerOf(pages: User[][], options: { readTo?: string; similar?: SimilarNames[] } = {}) {
  const read: Sql[] = [];
  const probed: Sql[] = [];
  const similarReads: string[] = [];
  const reader: PageReader<User> = {
    dialect: 'sqlite',
    products: [],
    readLimit: 10,
    async rows(statement) {
      read.push(statement);
      return pages[read.length - 1] ?? [];
    },
    async firstId(statement) {
      probed.push(statement);
      return options.readTo;
    },
    idOf: (user) => user.id,
    async similarNames(text) {
      similarReads.push(text);
      return options.similar ?? [];
    },
  };
  return { reader, read, probed, similarReads };
}

const COLUMNS = raw('id');
const PAGE = { offset: 0, limit: 3 } satisfies UserListQuery;
/** A page walked in the index of the subscriptions giving print, each checked against the filter. */
const WALKED = { ...PAGE, activeSubscription: { at: 1_796_083_200, resource: 'print' } } satisfies UserListQuery;

describe('a page of the user list', () => {
  it('is one statement where each entry of its index is a user of the page', async () => {
    const { reader, read, probed } = readerOf([users(1, 2)]);
    assert.deepEqual(await readUserPage(PAGE, COLUMNS, reader), { users: users(1, 2) });
    assert.equal(read.length, 1);
    assert.equal(probed.length, 0);
  });

  it('walked, is one statement when it comes full, and may stop short', async () => {
    const { reader, read, probed } = readerOf([users(1, 2, 3)]);
    assert.deepEqual(await readUserPage(WALKED, COLUMNS, reader), { users: users(1, 2, 3), mayStopShort: true });
    assert.equal(read.length, 1);
    assert.equal(probed.length, 0);
  });

  it('walked and come short, asks for the user at the read limit past the cursor', async () => {
    const { reader, probed } = readerOf([users(1, 2), users(1, 2)]);
    await readUserPage(WALKED, COLUMNS, reader);
    assert.equal(probed.length, 1);
    // The entry at readLimit, whether or not it meets the filter: one, past readLimit - 1 of them.
    const { text, values } = probed[0]!.render('sqlite');
    assert.deepEqual(values.slice(-2), [1, 9]);
    // Its ids alone: no check of each entry against the filter (` AS ok`).
    assert.match(text, /^SELECT s\.user_id AS id FROM /);
    assert.doesNotMatch(text, / AS ok /);
    // PostgreSQL cuts each walk on its own, at as many entries as the read goes to.
    await readUserPage(WALKED, COLUMNS, { ...reader, dialect: 'postgres' });
    assert.ok(probed[1]?.render('postgres').values.includes(10));
  });

  it('walked and come short before the end of the list, is read again up to that user and says so', async () => {
    const { reader, read } = readerOf([users(1, 2), users(1, 2)], { readTo: '40' });
    assert.deepEqual(await readUserPage(WALKED, COLUMNS, reader), {
      users: users(1, 2),
      mayStopShort: true,
      readTo: '40',
    });
    assert.equal(read.length, 2);
    assert.ok(read[1]?.render('sqlite').values.includes(40), 'read up to user 40');
  });

  it('walked and read again full, does not say where it stopped', async () => {
    const { reader } = readerOf([users(1, 2), users(1, 2, 40)], { readTo: '40' });
    assert.deepEqual(await readUserPage(WALKED, COLUMNS, reader), { users: users(1, 2, 40), mayStopShort: true });
  });

  it('walked and come short at the end of the list, is read again as far as the read limit', async () => {
    const { reader, read } = readerOf([users(1, 2), users(1)]);
    assert.deepEqual(await readUserPage(WALKED, COLUMNS, reader), { users: users(1), mayStopShort: true });
    assert.deepEqual(read[1]?.render('sqlite'), read[0]?.render('sqlite'));
  });
});

describe('what is read before a page of the user list', () => {
  it('is the products giving the resource of a page by resource, in id order', () => {
    assert.deepEqual(productsOfPage(WALKED)?.render('sqlite'), {
      text: "SELECT id FROM products WHERE resource IN ('print', 'print-online') ORDER BY id",
      values: [],
    });
  });

  it('is nothing before any other page', () => {
    const at = 1_796_083_200;
    for (const query of [
      PAGE,
      { ...PAGE, activeSubscription: { at } },
      { ...PAGE, activeSubscription: { at, product: 'digital' } },
      { ...PAGE, newsletter: 'morning-briefing', activeSubscription: { at, resource: 'print' as const } },
    ]) {
      assert.equal(productsOfPage(query), undefined, JSON.stringify(query));
    }
  });
});

describe('a page of a search', () => {
  const SEARCH = { offset: 0, limit: 5, search: searchRange('lovelace')! } satisfies UserListQuery;
  // Ranks against "lovelace": lovelacex 0.73, lovelac 0.7, lovelase 0.5.
  const SIMILAR: SimilarNames[] = [
    { id: '7', names: ['lovelase', null] },
    { id: '3', names: [null, 'lovelac'] },
    { id: '2', names: ['lovelacex', null] },
    { id: '5', names: ['smith', 'lovelase'] },
    { id: '1', names: ['lovelacex', null] },
    { id: '9', names: ['lovelace', 'smith'] },
    { id: '11', names: [null, null] },
  ];

  it('adds readers whose name is one typo from it after its matches, closest first, then by id', async () => {
    const { reader, read } = readerOf([users(1), users(2, 3)], { similar: SIMILAR });
    const page = await readUserPage(SEARCH, COLUMNS, reader);
    assert.deepEqual(page, { users: users(1, 2, 3) });
    // Three places left, the last kept empty: 1 is a match already, 5 before 7 as close.
    const { text, values } = read[1]!.render('sqlite');
    assert.match(
      text,
      /WHERE id IN \(\?, \?, \?\) ORDER BY CASE id WHEN \? THEN \? WHEN \? THEN \? WHEN \? THEN \? END$/,
    );
    assert.deepEqual(values, [2, 3, 5, 2, 0, 3, 1, 5, 2]);
  });

  it('orders readers whose names are as close by id', async () => {
    const { reader, read } = readerOf([[], []], { similar: SIMILAR.filter((s) => ['7', '5'].includes(s.id)) });
    await readUserPage(SEARCH, COLUMNS, reader);
    assert.deepEqual(read[1]?.render('sqlite').values.slice(0, 2), [5, 7]);
  });

  it('adds one where only one place is left before the last, and none where none is', async () => {
    const one = readerOf([users(21, 22, 23), users(1)], { similar: SIMILAR });
    assert.deepEqual((await readUserPage(SEARCH, COLUMNS, one.reader)).users, users(21, 22, 23, 1));
    assert.deepEqual(one.read[1]?.render('sqlite').values, [1, 1, 0]);
    for (const first of [users(21, 22, 23, 24), users(21, 22, 23, 24, 25)]) {
      const none = readerOf([first], { similar: SIMILAR });
      assert.deepEqual((await readUserPage(SEARCH, COLUMNS, none.reader)).users, first);
      assert.equal(none.read.length, 1);
      assert.deepEqual(none.similarReads, [], 'no similar names read');
    }
  });

  it('adds none where no name is one typo from it', async () => {
    const { reader, read } = readerOf([users(1)], { similar: SIMILAR.filter((s) => ['9', '11'].includes(s.id)) });
    assert.deepEqual(await readUserPage(SEARCH, COLUMNS, reader), { users: users(1) });
    assert.equal(read.length, 1);
  });

  it('adds none past its first page, nor with another filter', async () => {
    const queries: UserListQuery[] = [
      { ...SEARCH, afterId: '40' },
      { ...SEARCH, offset: 5 },
      { ...SEARCH, email: { domain: 'example.com' } },
      { ...SEARCH, circulationNumber: 'C-1' },
      { ...SEARCH, newsletter: 'morning-briefing' },
      { ...SEARCH, licenceDomains: ['example.ac.uk'] },
      { ...SEARCH, activeSubscription: { at: 1_796_083_200 } },
      { ...SEARCH, search: searchRange('lovelace 42')! },
    ];
    for (const query of queries) {
      const { reader, read } = readerOf([users(1)], { similar: SIMILAR });
      assert.deepEqual(await readUserPage(query, COLUMNS, reader), { users: users(1) }, JSON.stringify(query));
      assert.equal(read.length, 1);
    }
  });
});
