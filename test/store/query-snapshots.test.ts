/**
 * The SQL the builders make (store/sql/) for the statements whose shape depends on a request,
 * checked in as text under test/store/queries/, one file a statement with both dialects: a change
 * to a builder shows as a SQL diff in review, beside the plan tests that say why it reads so.
 *
 * After a deliberate change, write the files anew and read their diff:
 *   UPDATE_QUERY_SNAPSHOTS=1 node --import tsx --test test/store/query-snapshots.test.ts
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runOf } from '../../src/domain/delivery.js';
import { parseDate } from '../../src/domain/publication.js';
import { reportWeeks } from '../../src/domain/report.js';
import { searchRange } from '../../src/domain/search.js';
import { addressKeys, parseAddress } from '../../src/domain/site-licence.js';
import type { UserListQuery } from '../../src/store/ports/users.js';
import { raw, type Dialect, type Sql } from '../../src/store/sql/builder.js';
import { drawCountQueries, renderedRunPageQuery, runPageQuery } from '../../src/store/sql/deliveries.js';
import { activeGroupsQuery, weekCountsQuery } from '../../src/store/sql/reports.js';
import { licencesOfDomains, licencesOfNetwork } from '../../src/store/sql/site-licences.js';
import { activeSubscriptionsOfUser, subscriptionPage } from '../../src/store/sql/subscriptions.js';
import { USER_COLUMNS, usersOfPage, type Reach } from '../../src/store/sql/users.js';

const DIRECTORY = new URL('./queries/', import.meta.url);
const UPDATE = process.env.UPDATE_QUERY_SNAPSHOTS === '1';

/** 2026-12-01T00:00:00Z, the instant every statement is of. */
const AT = 1_796_083_200;
const RUN = runOf(parseDate('2026-12-01')!, 'UTC');
/** When the run of 2026-12-01 is asked for: the evening before, as fulfilment does. */
const RUN_ASKED = AT - 5 * 3600;
const COLUMNS = raw(['id', ...USER_COLUMNS].join(', '));
const PAGE = { offset: 0, limit: 101 } satisfies UserListQuery;

function addressOf(text: string) {
  const parsed = parseAddress(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.value;
}

const userPage =
  (query: UserListQuery, products: readonly string[] = ['digital', 'bundle'], reach: Reach = { limit: 10_000 }) =>
  (dialect: Dialect) =>
    usersOfPage(query, COLUMNS, dialect, products, reach);

/** More products giving a resource than a page by resource seeks one by one (PRODUCT_SEEKS, 32). */
const MANY_PRODUCTS = Array.from({ length: 34 }, (_, i) => String(i + 1));
const PRINT = { at: AT, resource: 'print' } as const;

/** Each statement by the name of its file, made for a dialect. */
const STATEMENTS: Record<string, (dialect: Dialect) => Sql | Sql[]> = {
  'users-page': userPage(PAGE),
  'users-page-after-descending': userPage({ ...PAGE, afterId: '42', descending: true }),
  'users-by-email-domain': userPage({ ...PAGE, email: { domain: 'example.com' } }),
  'users-by-search': userPage({ ...PAGE, search: searchRange('lovelace')! }),
  'users-of-newsletter': userPage({ ...PAGE, newsletter: 'morning-briefing' }),
  'users-with-active-product': userPage({ ...PAGE, activeSubscription: { at: AT, product: 'digital' } }),
  'users-with-active-print': userPage({ ...PAGE, activeSubscription: { at: AT, resource: 'print' } }),
  'users-of-newsletter-with-active-print': userPage({
    ...PAGE,
    newsletter: 'morning-briefing',
    activeSubscription: { at: AT, resource: 'print' },
  }),
  // A longer word after the first, and one as long after it: the names are read by the first longest.
  'users-by-search-of-words': userPage({ ...PAGE, search: searchRange('ada grace byron')! }),
  'users-by-search-of-a-number': userPage({ ...PAGE, search: searchRange('42')! }),
  'users-by-search-of-no-letter': userPage({ ...PAGE, search: searchRange('@')! }),
  'users-by-search-of-newsletter-with-active-product': userPage({
    ...PAGE,
    search: searchRange('lovelace')!,
    newsletter: 'morning-briefing',
    activeSubscription: { at: AT, product: 'digital' },
  }),
  'users-by-email-address-of-newsletter-after': userPage({
    ...PAGE,
    email: { address: 'Ada@Example.com' },
    newsletter: 'morning-briefing',
    afterId: '42',
  }),
  'users-by-circulation-number-with-active-subscription-after': userPage({
    ...PAGE,
    circulationNumber: 'C-1234',
    activeSubscription: { at: AT },
    afterId: '42',
  }),
  'users-by-licence-domain-of-newsletter': userPage({
    ...PAGE,
    licenceDomains: ['example.ac.uk', 'ac.uk'],
    newsletter: 'morning-briefing',
  }),
  'users-of-newsletter-after': userPage({ ...PAGE, newsletter: 'morning-briefing', afterId: '42' }),
  'users-with-active-subscription': userPage({ ...PAGE, activeSubscription: { at: AT } }),
  'users-with-active-product-of-newsletter': userPage({
    ...PAGE,
    newsletter: 'morning-briefing',
    activeSubscription: { at: AT, product: 'digital' },
  }),
  'users-with-active-print-of-many-products': userPage({ ...PAGE, activeSubscription: PRINT }, MANY_PRODUCTS),
  'users-with-active-product-read-to': userPage({ ...PAGE, activeSubscription: { at: AT, product: 'digital' } }, [], {
    to: '500',
  }),
  'users-with-active-print-read-to-descending': userPage(
    { ...PAGE, activeSubscription: PRINT, afterId: '900', descending: true },
    ['digital', 'bundle'],
    { to: '500' },
  ),
  'subscriptions-of-user': (dialect) =>
    subscriptionPage('42', { limit: 101, afterId: '7', filter: { statuses: ['active'], at: AT } }, dialect),
  'access-of-user': () => activeSubscriptionsOfUser('42', AT),
  // As sent where the ranges use /16, /24 and /32: an address is probed at the lengths in use alone.
  'access-by-network': (dialect) =>
    licencesOfNetwork(
      dialect,
      addressKeys(addressOf('10.1.2.3')).filter((key) => [16, 24, 32].includes(key.prefixLength)),
      AT,
    ),
  'access-by-email-domain': (dialect) => licencesOfDomains(dialect, ['example.ac.uk'], AT),
  'print-run-page': (dialect) =>
    runPageQuery(RUN, { limit: 101, afterId: '7', postalCode: '10115' }, dialect, RUN_ASKED),
  // As the API sends it: each delivery written as JSON by the database.
  'print-run-page-rendered': (dialect) => renderedRunPageQuery(RUN, { limit: 101, afterId: '7' }, dialect, RUN_ASKED),
  // A run already begun walks every subscription giving print, the expired among them.
  'print-run-page-begun': (dialect) => renderedRunPageQuery(RUN, { limit: 101, afterId: '7' }, dialect, AT + 3600),
  'draw-report': (dialect) => drawCountQueries(RUN, dialect, RUN_ASKED),
  'dashboard-report': (dialect) => [activeGroupsQuery(AT, dialect), weekCountsQuery(reportWeeks(AT), dialect)],
};

const DIALECTS: readonly [Dialect, string][] = [
  ['sqlite', 'SQLite'],
  ['postgres', 'PostgreSQL'],
];

/** The clauses put on a line of their own, where they begin the statement itself (not a subquery). */
const CLAUSE = /^(?:WITH|SELECT|FROM|(?:LEFT )?JOIN|WHERE|GROUP BY|ORDER BY|LIMIT|UNION(?: ALL)?)\b/;

/** The statement's text on one line, broken before each of its own clauses. */
function clauseLines(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  let depth = 0;
  let shown = '';
  for (let i = 0; i < flat.length; i += 1) {
    const char = flat[i] as string;
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    const breaks = char === ' ' && depth === 0 && CLAUSE.test(flat.slice(i + 1));
    shown += breaks && !/\bLEFT$/.test(shown) ? '\n' : char;
  }
  return shown;
}

/** One statement as its file shows it: the text a clause a line, then its values in order. */
function shown(statement: Sql, dialect: Dialect): string {
  const { text, values } = statement.render(dialect);
  const parameters = values.map((value, i) => `-- ${dialect === 'sqlite' ? '?' : `$${i + 1}`} = ${valueText(value)}`);
  return [clauseLines(text), ...parameters].join('\n');
}

function valueText(value: unknown): string {
  return Buffer.isBuffer(value) || value instanceof Uint8Array
    ? `x'${Buffer.from(value).toString('hex')}'`
    : JSON.stringify(value);
}

function snapshotOf(make: (dialect: Dialect) => Sql | Sql[]): string {
  return DIALECTS.map(([dialect, name]) => {
    const statements = ([] as Sql[]).concat(make(dialect));
    return `-- ${name}\n${statements.map((statement) => `${shown(statement, dialect)};`).join('\n\n')}\n`;
  }).join('\n');
}

describe('the SQL of the statements a request shapes', () => {
  for (const [name, make] of Object.entries(STATEMENTS)) {
    it(`is checked in for ${name}`, () => {
      const file = new URL(`${name}.sql`, DIRECTORY);
      const made = snapshotOf(make);
      if (UPDATE) writeFileSync(file, made);
      assert.equal(made, readFileSync(file, 'utf8'), `test/store/queries/${name}.sql differs: see this file's header`);
    });
  }

  it('keeps no file of a statement no longer made', () => {
    const files = readdirSync(DIRECTORY).filter((file) => file.endsWith('.sql'));
    assert.deepEqual(
      files.sort(),
      Object.keys(STATEMENTS)
        .map((name) => `${name}.sql`)
        .sort(),
    );
  });
});
