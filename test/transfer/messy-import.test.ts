/**
 * Moving a publisher in: a messy export of 500 readers in 529 rows, as a spreadsheet writes it (a
 * byte-order mark and CRLF, accents, the same email in other letter case, regions and countries
 * spelled out, FALSE/0 trial flags, US dates, blank family names, bcrypt hashes of three
 * prefixes, four rows that are not CSV rows at all, four bad subscriptions), imported on both
 * stores behind a real service: every reader whose own row is valid is imported with their
 * events, every other row is reported with its reasons, a second run writes nothing, and a
 * password a reader reset through the API since stays theirs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hash as bcryptHash } from 'bcrypt';
import { importFile, type ImportOptions, type ImportResult, type Rejection } from '../../src/transfer/import.js';
import { createWebhook } from '../support/fixtures.js';
import { issueResetToken, resetDocument, signIn } from '../support/readers.js';
import { startService, type Service } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'circulation-messy-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const READERS = 500;
/** Readers whose one row is not a CSV row: too few cells, a stray quote, too many, a quote never closed (last). */
const BROKEN = [496, 497, 498, 499];
/** Readers whose one row has a blank family name, which the API refuses. */
const BLANK = [50, 51, 52, 53, 54];
/** Readers with a second row, their email in other letter case, bringing a second subscription. */
const TWICE = Array.from({ length: 25 }, (_, i) => i);
/** Readers with a further row whose subscription is refused (a day not in the calendar, an unknown licence). */
const BAD_SUBSCRIPTION = [30, 31, 32, 33];
const PREFIXES = ['$2a$', '$2b$', '$2y$'] as const;
const PASSWORDS = PREFIXES.map((prefix) => `old site password ${prefix}`);

const HEADER = [
  'email',
  'givenName',
  'familyName',
  'address.addressLocality',
  'address.addressRegion',
  'address.addressCountry',
  'newsletters',
  'passwordHash',
  'subscription.dateStarted',
  'subscription.externalIdentifier',
  'subscription.license',
  'subscription.resource',
  'subscription.trial',
];

const PLACES = [
  ['Montréal', 'Québec', 'Canada'],
  ['Los Angeles', 'California', 'United States'],
  ['Toronto', 'Ontario', 'CA'],
  ['Albany', 'New York', 'USA'],
  ['Vancouver', 'British Columbia', 'canada'],
  ['Austin', 'TX', 'US'],
  ['Zürich', 'Zürich', 'CH'],
] as const;
const GIVEN = ['Zoë', 'José', 'Ana', 'Björn', 'Chloé'];
const FAMILY = ['Müller', 'Núñez', "O'Brien", 'Łukasz', 'Smith'];
const TRIAL = ['FALSE', '0', 'TRUE', 'yes', 'No', 'false'];

/** The email a reader's first row writes: mixed case, which the reader keeps. */
const emailOf = (n: number) => `Reader${n}@Messy.Example`;

function cell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function row(cells: readonly string[]): string {
  return cells.map(cell).join(',');
}

/** A reader's row: their subscription numbered `k` (a second row brings another). */
function readerRow(n: number, hashes: readonly string[], k = 1, email = emailOf(n)): string {
  const [locality, region, country] = PLACES[n % PLACES.length]!;
  const month = String((n % 12) + 1).padStart(2, '0');
  return row([
    email,
    GIVEN[n % GIVEN.length]!,
    BLANK.includes(n) ? ' ' : FAMILY[n % FAMILY.length]!,
    locality,
    region,
    country,
    n % 2 === 0 ? 'daily;weekly' : 'weekly',
    hashes[n % 3]!,
    // US dates, as the old system wrote them; a few in ISO-8601.
    n % 10 === 0 ? `2025-${month}-15` : `${month}/15/2025`,
    `old-${n}-${k}`,
    'individual',
    n % 2 === 0 ? 'print-online' : 'online',
    TRIAL[n % TRIAL.length]!,
  ]);
}

const BROKEN_ROWS: Record<number, (n: number) => string> = {
  496: (n) => `${emailOf(n)},Short,Row`,
  497: (n) => `${emailOf(n)},Ann,O"Brien,Dublin,,IE,,,2025-01-01,old-${n}-1,individual,online,false`,
  498: (n) => `${emailOf(n)},Too,Many,Dublin,,IE,,,2025-01-01,old-${n}-1,individual,online,false,extra,cells`,
  499: (n) => `${emailOf(n)},Never,"Closed,Dublin,,IE,,,2025-01-01,old-${n}-1,individual,online,false`,
};

/** The file, and the line of each reader's first row. */
function messyFile(hashes: readonly string[]): { text: string; lineOf: Map<number, number> } {
  const lines = [HEADER.join(',')];
  const lineOf = new Map<number, number>();
  const broken = BROKEN.map((n) => ({ n, text: (BROKEN_ROWS[n] as (n: number) => string)(n) }));
  for (let n = 0; n < READERS - BROKEN.length; n += 1) {
    lineOf.set(n, lines.length + 1);
    lines.push(readerRow(n, hashes));
    if (TWICE.includes(n)) lines.push(readerRow(n, hashes, 2, emailOf(n).toLowerCase()));
    if (BAD_SUBSCRIPTION.includes(n)) {
      const bad = readerRow(n, hashes, 3).replace(/,individual,/, n % 2 === 0 ? ',gold,' : ',individual,');
      lines.push(n % 2 === 0 ? bad : bad.replace(/,\d\d\/15\/2025,/, ',02/30/2025,'));
    }
    // The broken rows among the others; the one whose quote is never closed comes last.
    if (n % 100 === 99 && broken.length > 1) {
      const { n: b, text } = broken.shift()!;
      lineOf.set(b, lines.length + 1);
      lines.push(text);
    }
  }
  for (const { n, text } of broken) {
    lineOf.set(n, lines.length + 1);
    lines.push(text);
  }
  return { text: `\uFEFF${lines.join('\r\n')}\r\n`, lineOf };
}

forEachStore((kind) => {
  describe('importing a messy export of 500 readers', () => {
    let service: Service;
    let file: string;
    let lineOf: Map<number, number>;
    let first: { result: ImportResult; rejections: Rejection[] };

    const run = async (options: Partial<ImportOptions> = {}) => {
      const rejections: Rejection[] = [];
      const result = await importFile(service.store, file, {
        format: 'csv',
        audit: { actor: 'import', attributes: [] },
        leniency: { dateFormat: 'MM/DD/YYYY' },
        onRejected: async (rejection) => {
          rejections.push(rejection);
        },
        ...options,
      });
      return { result, rejections };
    };
    const count = async (table: string, where = '') =>
      Number(((await service.sql(`SELECT count(*) AS n FROM ${table} ${where}`)) as [{ n: number }])[0].n);

    before(async () => {
      service = await startService(kind);
      const cost4 = await bcryptHash(PASSWORDS[0]!, 4);
      // One hash per prefix, each of its own password: $2a$, $2b$ and $2y$ are the same algorithm.
      const hashes = await Promise.all(
        PREFIXES.map(async (prefix, i) => `${prefix}${(await bcryptHash(PASSWORDS[i]!, 4)).slice(4)}`),
      );
      assert.ok(cost4.startsWith('$2b$04$'));
      ({ text: file, lineOf } = (() => {
        const made = messyFile(hashes);
        const path = join(dir, `${kind}-messy.csv`);
        writeFileSync(path, made.text);
        return { text: path, lineOf: made.lineOf };
      })());
      await createWebhook(service.client, {
        url: 'https://hooks.example.com/circulation',
        events: ['user.created', 'user.updated', 'subscription.created'],
      });
    });
    after(() => service.close());

    it('is 529 rows', () => {
      // The header, then 496 readers' rows, 4 broken ones, 25 second rows and 4 with a bad subscription.
      assert.equal(lineOf.get(499), 530);
    });

    it('checks every row on a dry run, reporting what the import will, and writes nothing', async () => {
      const before = await service.snapshot();
      first = await run({ dryRun: true });
      assert.equal(await service.snapshot(), before);
      assert.equal(await count('audit_log', "WHERE actor = 'import'"), 0);
    });

    it('imports every reader whose own row is valid, reading the messy values kindly', async () => {
      const dry = first;
      first = await run();
      const imported = READERS - BROKEN.length - BLANK.length;
      assert.deepEqual(first.result, {
        rows: 529,
        created: imported,
        updated: 0,
        unchanged: 0,
        rejected: BROKEN.length + BLANK.length,
        subscriptionsAdded: imported + TWICE.length,
        subscriptionsRejected: BAD_SUBSCRIPTION.length,
        newslettersSuppressed: 0,
      });
      assert.deepEqual(dry, first, 'the dry run reported and counted the same');
      assert.equal(await count('users'), imported);
      const [quebec] = await service.sql(
        `SELECT email, given_name, family_name, address_address_region AS region, address_address_country AS country
         FROM users WHERE email_lower = 'reader0@messy.example'`,
      );
      // The email as the reader's first row wrote it, though the second wrote it otherwise.
      assert.deepEqual(
        { ...quebec },
        { email: 'Reader0@Messy.Example', given_name: 'Zoë', family_name: 'Müller', region: 'QC', country: 'CA' },
      );
      const regions = await service.sql(
        `SELECT DISTINCT address_address_region AS r, address_address_country AS c FROM users ORDER BY 2, 1`,
      );
      assert.deepEqual(
        regions.map(({ r, c }) => `${r as string}/${c as string}`),
        ['BC/CA', 'ON/CA', 'QC/CA', 'Zürich/CH', 'CA/US', 'NY/US', 'TX/US'],
      );
      const [march] = await service.sql(
        `SELECT s.trial FROM subscriptions s JOIN users u ON u.id = s.user_id
         WHERE u.email_lower = 'reader2@messy.example' AND s.external_identifier = 'old-2-1'`,
      );
      assert.equal(Boolean(march?.trial), true, 'TRUE is read as true');
      // TRUE and yes are true; FALSE, 0, No and false are false.
      const trials = Array.from({ length: READERS }, (_, n) => n)
        .filter((n) => !BROKEN.includes(n) && !BLANK.includes(n))
        .flatMap((n) => (TWICE.includes(n) ? [n, n] : [n]))
        .filter((n) => ['TRUE', 'yes'].includes(TRIAL[n % TRIAL.length]!));
      assert.equal(await count('subscriptions', 'WHERE trial = true'), trials.length);
      assert.equal(await count('subscriptions', 'WHERE trial = false'), imported + TWICE.length - trials.length);
    });

    it('reports every other row by its line and email, with every reason', () => {
      const refusedRows = first.rejections.filter((r) => r.refused === 'row');
      assert.deepEqual(
        refusedRows.map((r) => [r.line, r.email?.toLowerCase()]),
        [...BLANK, ...BROKEN]
          .map((n) => [lineOf.get(n), emailOf(n).toLowerCase()])
          .sort((a, b) => (a[0] as number) - (b[0] as number)),
      );
      const byReader = (n: number) => refusedRows.find((r) => r.line === lineOf.get(n))?.errors;
      assert.deepEqual(byReader(50), ["familyName: can't be blank"]);
      assert.deepEqual(byReader(496), ['the row: has 3 cells where the header has 13']);
      assert.match(byReader(497)?.[0] ?? '', /^the row: has a quote inside a cell/);
      assert.deepEqual(byReader(498), ['the row: has 15 cells where the header has 13']);
      assert.match(byReader(499)?.[0] ?? '', /^the row: opens a quote that is never closed/);
      const subscriptions = first.rejections.filter((r) => r.refused === 'subscriptions');
      assert.deepEqual(
        subscriptions.map((r) => [r.email, r.errors]),
        [
          [emailOf(30), ['subscription.license: must be one of: individual, free, site']],
          [emailOf(31), [expectedDateError()]],
          [emailOf(32), ['subscription.license: must be one of: individual, free, site']],
          [emailOf(33), [expectedDateError()]],
        ],
      );
    });

    it('records every reader and subscription as events naming every attribute set, delivered to webhooks', async () => {
      const imported = READERS - BROKEN.length - BLANK.length;
      const [reader] = await service.sql("SELECT id FROM users WHERE email_lower = 'reader0@messy.example'");
      const events = await service.store.audit.list({ userId: String(reader?.id), limit: 10 });
      assert.deepEqual(
        events.filter((e) => e.consent !== null).map((e) => [e.resourceId, e.consent]),
        ['daily', 'weekly'].map((id) => [id, { oldState: null, newState: 'subscribed', source: 'import' }]),
      );
      assert.deepEqual(
        events.map((e) => [e.actor, e.eventType, e.attributes]),
        [
          ['import', 'user.created', ['address', 'email', 'familyName', 'givenName', 'newsletters', 'passwordHash']],
          // Reader 0 is on daily and weekly: a consent of each, of source import.
          ['import', 'newsletter_consent.changed', ['changedAt', 'source', 'state']],
          ['import', 'newsletter_consent.changed', ['changedAt', 'source', 'state']],
          ['import', 'subscription.created', ['dateStarted', 'externalIdentifier', 'license', 'resource', 'trial']],
          ['import', 'subscription.created', ['dateStarted', 'externalIdentifier', 'license', 'resource', 'trial']],
        ],
      );
      assert.equal(await count('audit_log', "WHERE event_type = 'user.created'"), imported);
      assert.equal(await count('audit_log', "WHERE event_type = 'subscription.created'"), imported + TWICE.length);
      // One delivery an event, queued per reader; the dispatcher sends them a few at a time.
      assert.equal(await count('webhook_deliveries'), imported * 2 + TWICE.length);
    });

    it('writes nothing when the same file is imported again: no version, no event, no delivery', async () => {
      const before = await service.snapshot();
      const entries = await count('audit_log');
      const again = await run();
      assert.deepEqual(again.result, {
        ...first.result,
        created: 0,
        unchanged: READERS - BROKEN.length - BLANK.length,
        subscriptionsAdded: 0,
      });
      assert.deepEqual(again.rejections, first.rejections);
      assert.equal(await service.snapshot(), before);
      assert.equal(await count('audit_log'), entries);
    });

    it('keeps a password the reader reset through the API since, on a run that changes nothing else', async () => {
      const email = emailOf(7);
      assert.equal((await signIn(service.client, email, PASSWORDS[7 % 3])).status, 201, 'the imported hash signs in');
      const [reader] = await service.sql("SELECT id FROM users WHERE email_lower = 'reader7@messy.example'");
      const token = await issueResetToken(service.client, String(reader?.id));
      const reset = await service.client.post('/password-resets', resetDocument(token, 'a password of her own now'));
      assert.equal(reset.status, 204, reset.text);
      const entries = await count('audit_log');
      const again = await run();
      assert.equal(again.result.updated, 0);
      assert.equal(await count('audit_log'), entries);
      assert.equal((await signIn(service.client, email, 'a password of her own now')).status, 201);
      assert.equal((await signIn(service.client, email, PASSWORDS[7 % 3])).status, 422);
    });

    it('applies the file password over one the reader has only when told to (--overwrite-passwords)', async () => {
      const again = await run({ overwritePasswords: true });
      // Reader 7 alone has another hash than the file's: the others were left as the file has them.
      assert.equal(again.result.updated, 1);
      assert.equal((await signIn(service.client, emailOf(7), PASSWORDS[7 % 3])).status, 201);
    });
  });
});

function expectedDateError(): string {
  return 'subscription.dateStarted: must be an ISO-8601 timestamp with a UTC offset, such as 2025-01-31T00:00:00+00:00, in the years 0000 to 9999 in UTC';
}
