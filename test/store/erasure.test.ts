/**
 * Erasing a reader (`users.delete`) reaches every table that holds their data, in its transaction,
 * and leaves nothing of them in the database: not in a table, and on SQLite not in the file's
 * free pages or its write-ahead log either.
 *
 * Every table that names a reader (a `user_id` column, or an email) is listed in
 * test/support/reader-tables.ts with how an erasure reaches it. A table added to the schema and
 * not listed there fails the first test; one listed as reached by a cascade that is not fails
 * the second.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { runOf } from '../../src/domain/delivery.js';
import { toUserFields } from '../../src/domain/user.js';
import { KEPT } from '../../src/store/sql/kept-runs.js';
import { AUDIT, fullUserAttributes } from '../support/fixtures.js';
import { today } from '../support/print.js';
import { holdsReaders, READER_TABLES, readerKey } from '../support/reader-tables.js';
import { forEachStore, openTestStore, type TestStore } from '../support/stores.js';

/** A column that names a reader. */
const NAMES_A_READER = /^user_id$|email/;

forEachStore((kind) => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore(kind);
  });
  after(() => store.close());

  /** Every table of the schema with its columns. */
  async function columnsByTable(): Promise<Map<string, string[]>> {
    const rows =
      kind === 'SQLite'
        ? await store.sql(
            `SELECT m.name AS table_name, c.name AS column_name FROM sqlite_master m, pragma_table_info(m.name) c
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
          )
        : await store.sql(
            `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
          );
    const tables = new Map<string, string[]>();
    for (const row of rows) {
      const name = String(row.table_name);
      tables.set(name, [...(tables.get(name) ?? []), String(row.column_name)]);
    }
    return tables;
  }

  /** The tables whose user_id references users (id) with ON DELETE CASCADE. */
  async function cascadingTables(): Promise<string[]> {
    const rows =
      kind === 'SQLite'
        ? await store.sql(
            `SELECT m.name AS table_name FROM sqlite_master m, pragma_foreign_key_list(m.name) f
             WHERE m.type = 'table' AND f."table" = 'users' AND f."from" = 'user_id' AND f."to" = 'id'
               AND f.on_delete = 'CASCADE'`,
          )
        : await store.sql(
            `SELECT c.conrelid::regclass::text AS table_name FROM pg_constraint c
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
             WHERE c.contype = 'f' AND c.confrelid = 'users'::regclass AND c.confdeltype = 'c'
               AND a.attname = 'user_id' AND c.connamespace = current_schema()::regnamespace`,
          );
    return rows.map((r) => String(r.table_name));
  }

  /** Asks for a page of the run of `date` until it is kept, with `marker` in it. */
  async function keptRun(date: number, marker: string): Promise<void> {
    const run = runOf(date, 'UTC');
    const kept = async () =>
      (await store.sql(`SELECT 1 FROM kept_runs WHERE date = ? AND state = ${KEPT}`, [date])).length > 0;
    for (let tries = 0; !(await kept()); tries += 1) {
      assert.ok(tries < 500, 'the run was not kept within 5 s');
      await store.store.deliveries.listRendered(run, { limit: 1 });
      await sleep(10);
    }
    const sent = await store.store.deliveries.listRendered(run, { limit: 100 });
    assert.ok(sent.some((delivery) => delivery.json.includes(marker)));
  }

  describe('erasing a reader', () => {
    it('knows how it reaches every table that names a reader', async () => {
      const naming = [...(await columnsByTable())]
        .filter(([, columns]) => columns.some((c) => NAMES_A_READER.test(c)))
        .map(([table]) => table)
        .sort();
      const listed = Object.keys(READER_TABLES).filter((t) => holdsReaders(kind, t));
      assert.deepEqual(naming, listed.sort(), 'a table names readers: list it in READER_TABLES');
    });

    it('reaches by cascade every table listed so', async () => {
      const listed = Object.entries(READER_TABLES).filter(([t, reach]) => reach === 'cascade' && holdsReaders(kind, t));
      assert.deepEqual((await cascadingTables()).sort(), listed.map(([table]) => table).sort());
    });

    it('leaves no row naming them, and no value of theirs anywhere in the database', async () => {
      const marker = randomBytes(8).toString('hex');
      const attributes = fullUserAttributes(`erased-${marker}@example.com`);
      const user = await store.store.users.create(
        {
          email: attributes.email,
          passwordHash: null,
          fields: toUserFields({ ...attributes, internalNotes: `notes ${marker}`, givenName: `Given${marker}` }),
          // A newsletter is the catalogue's, not the reader's: it stays, and so its id carries no marker.
          newsletters: ['daily'],
        },
        AUDIT,
      );
      await store.store.webhooks.create(
        { url: 'https://hooks.example.com/', events: ['user.updated'], secretSalt: 's' },
        AUDIT,
      );
      const subscription = await store.store.subscriptions.create(
        user.id,
        {
          dateStarted: 0,
          dateEnded: null,
          externalIdentifier: `ext-${marker}`,
          license: null,
          resource: null,
          trial: false,
          productId: null,
          deliveryDays: null,
          ipRanges: [],
          emailDomains: [],
          seats: null,
        },
        AUDIT,
      );
      await store.store.users.update(
        user.id,
        { fields: { telephone: `+1 ${marker}` }, addNewsletters: [], removeNewsletters: [] },
        AUDIT,
      );
      assert.ok(subscription);
      // A site licence's networks and domains are keys of their own, which name their owner.
      const licence = await store.store.subscriptions.create(
        user.id,
        {
          ...subscription,
          license: 'site',
          externalIdentifier: null,
          ipRanges: ['10.9.0.0/16', '2001:db8::/32'],
          emailDomains: [`erased-${marker}.example`, `*.erased-${marker}.example`],
          seats: 3,
        },
        AUDIT,
      );
      // A seat of the reader's licence given to another, a seat of another's licence given to
      // the reader, and the usage of the reader's licence.
      const other = await store.store.users.create(
        {
          email: `other-${randomBytes(8).toString('hex')}@example.org`,
          passwordHash: null,
          fields: { familyName: 'Other' },
          newsletters: [],
        },
        AUDIT,
      );
      const theirs = await store.store.subscriptions.create(
        other.id,
        { ...subscription, license: 'site', externalIdentifier: null, seats: 1 },
        AUDIT,
      );
      assert.ok(licence && theirs);
      assert.ok(await store.store.seats.create(user.id, licence.id, other.id, AUDIT));
      assert.ok(await store.store.seats.create(other.id, theirs.id, user.id, AUDIT));
      await store.store.licenceUsage.add([
        { userId: user.id, subscriptionId: licence.id, month: '2026-11', via: 'seat', count: 3 },
      ]);
      await store.store.holds.create(
        user.id,
        subscription.id,
        (context) => ({
          values: { startDate: 20_000, endDate: 20_001, compensation: 'credit', deliveriesMissed: 2, extendedDays: 0 },
          dateEnded: context.terms.dateEnded,
        }),
        AUDIT,
      );
      await store.store.temporaryAddresses.create(
        user.id,
        () => ({
          startDate: 20_000,
          endDate: 20_010,
          address: {
            streetAddress: `${marker} Shore Road`,
            unitNumber: null,
            addressLocality: 'Brightsea',
            addressRegion: null,
            addressCountry: 'GB',
            postalCode: `P${marker}`,
          },
        }),
        AUDIT,
      );
      await store.store.deliveryComplaints.create(
        user.id,
        subscription.id,
        (context) => ({
          values: { deliveryDate: 19_990, reason: 'wet', remedy: 'redeliver', repeat: false, redeliveryDate: 20_005 },
          dateEnded: context.terms.dateEnded,
        }),
        AUDIT,
      );
      // Tomorrow's run, kept once asked for: the reader's delivery in it goes to an
      // address of theirs for the date.
      const tomorrow = today() + 1;
      await store.store.subscriptions.create(
        user.id,
        { ...subscription, resource: 'print', externalIdentifier: null },
        AUDIT,
      );
      await store.store.temporaryAddresses.create(
        user.id,
        () => ({
          startDate: tomorrow,
          endDate: tomorrow,
          address: {
            streetAddress: `${marker} Tomorrow Lane`,
            unitNumber: null,
            addressLocality: 'Brightsea',
            addressRegion: null,
            addressCountry: 'GB',
            postalCode: null,
          },
        }),
        AUDIT,
      );
      await keptRun(tomorrow, marker);
      await store.store.idempotency.claimKey('erasure', marker, 'f', 1, { staleAfter: 60, keepFor: 3600 });
      await store.store.idempotency.finishKey(
        'erasure',
        marker,
        { status: 201, headers: {}, body: JSON.stringify({ email: attributes.email }) },
        user.id,
      );
      await store.store.signIns.countAttempt(attributes.email, 1, { maxAttempts: 10, windowSeconds: 900 });
      await store.store.passwordResets.createToken(
        { userId: user.id, tokenHash: randomBytes(32), createdAt: 1, expiresAt: 4_000_000_000 },
        AUDIT,
      );
      await store.store.privacyRequests.create(
        user.id,
        { kind: 'erasure', receivedAt: 1, dueAt: 2_678_401, completedAt: null, notes: `asked by ${marker}` },
        AUDIT,
      );
      assert.ok((await store.rawDump()).includes(marker), 'the dump shows the reader before the erasure');

      assert.equal(await store.store.users.delete(user.id, AUDIT), true);
      // The seats they held, rows of another's licence, went with them too.
      const held = await store.sql('SELECT count(*) AS n FROM seats WHERE holder_id = ?', [user.id]);
      assert.equal(Number(held[0]?.n), 0, 'a seat the erased reader held is still there');
      for (const [table, reach] of Object.entries(READER_TABLES)) {
        if (reach.startsWith('kept') || !holdsReaders(kind, table)) continue;
        const [column, value] = readerKey(table, reach, user.id, attributes.email);
        const rows = await store.sql(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, [value]);
        assert.equal(Number(rows[0]?.n), 0, `${table} still names the erased reader`);
      }
      const dump = await store.rawDump();
      assert.ok(!dump.includes(marker), 'a value of the erased reader is still in the database');
    });
  });
});
