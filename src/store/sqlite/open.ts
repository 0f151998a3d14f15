/**
 * Opening a SQLite store: the file (made with its folder on first start), WAL mode, the
 * durability setting, the schema migrated to this release, how references to the catalogue are
 * treated, the writes of each turn of the event loop committed together (group-commit.ts), and
 * every kind of record's statements composed into one `Store`.
 */
import { closeSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { withOutagesAsUnavailable } from '../availability.js';
import { NoDatabase } from '../no-database.js';
import type { Store, StoreOptions } from '../port.js';
import { pendingMigrations } from '../sql/migrations.js';
import { PAGE_READ_LIMIT } from '../sql/users.js';
import { sqliteAudit } from './audit.js';
import { sqliteCredentials } from './credentials.js';
import { SqliteDatabase } from './database.js';
import { copyDatabase } from './files.js';
import { GroupCommit } from './group-commit.js';
import { offLoopReads } from './off-loop-reads.js';
import { sqliteDeliveries } from './deliveries.js';
import { sqliteDeliveryComplaints } from './delivery-complaints.js';
import { sqliteHolds } from './holds.js';
import { sqliteTemporaryAddresses } from './temporary-addresses.js';
import { sqlitePrivacyRequests } from './privacy-requests.js';
import { sqliteReaderData } from './reader-data.js';
import { sqliteConsents, sqliteConsentWriter } from './consents.js';
import { sqliteReaderSources } from './reader-sources.js';
import { sqliteLicenceUsage } from './licence-usage.js';
import { sqliteSeats } from './seats.js';
import { sqliteSiteLicences } from './site-licences.js';
import { sqliteIdempotency } from './idempotency.js';
import { sqliteMigrations, type SqliteMigration } from './migrations.js';
import { keepUsersJsonText } from './user-text.js';
import { keepRunsByTriggers, sqliteKeptRuns } from './kept-runs.js';
import { sqlitePasswordResets } from './password-resets.js';
import { sqliteSignIns } from './sign-ins.js';
import { sqliteStaff } from './staff.js';
import { sqliteNewsletters } from './newsletters.js';
import { sqliteProducts } from './products.js';
import { sqliteReferences } from './references.js';
import { sqliteReports } from './reports.js';
import { sqliteRetention } from './retention.js';
import { sqliteSubscriptions } from './subscriptions.js';
import { sqliteUsers } from './users.js';
import { sqliteWebhooks } from './webhooks.js';

export type SqliteSynchronous = 'NORMAL' | 'FULL';

export interface SqliteOptions extends StoreOptions {
  /** A file path, or `:memory:`. */
  path: string;
  /** NORMAL survives a crash of the process; FULL also survives a loss of power. */
  synchronous?: SqliteSynchronous;
  /**
   * How long a statement waits for a lock another process holds. The wait blocks this process
   * (the driver is synchronous), so it is short; past it the request is a 503.
   */
  busyTimeoutMs?: number;
  /**
   * Whether the counts as long as a table are read on a worker's connection (off-loop-reads.ts),
   * as they are by default for a file; false reads them on this connection, where what runs can
   * be watched (the tests of query plans).
   */
  longReadsOffLoop?: boolean;
}

export function openSqliteStore(options: SqliteOptions): Store {
  const create = options.create ?? true;
  if (!create && (options.path === ':memory:' || !existsSync(options.path))) throw new NoDatabase();
  if (options.path !== ':memory:') createPrivately(options.path);
  const db = new Database(options.path);
  const busyTimeoutMs = options.busyTimeoutMs ?? 1000;
  try {
    if (!create && !hasSchema(db)) throw new NoDatabase();
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    // Deleted rows are overwritten with zeros, not left in free pages: an erased reader is gone
    // from the file, not only from its tables.
    db.pragma('secure_delete = ON');
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    migrate(db, sqliteMigrations);
    keepUsersJsonText(db);
    keepRunsByTriggers(db);
    // Before any statement of the store is made: its transactions join the turn's (group-commit.ts).
    const group = new GroupCommit(db, options.path === ':memory:' ? undefined : resolve(options.path));
    const database = new SqliteDatabase(
      db,
      options.path === ':memory:' || options.longReadsOffLoop === false
        ? undefined
        : offLoopReads(options.path, busyTimeoutMs),
      group,
    );
    const references = sqliteReferences(database, options.strictReferences ?? false);
    const consentWriter = sqliteConsentWriter(database);
    const ping = db.prepare('SELECT count(*) FROM schema_migrations');
    const subscriptions = sqliteSubscriptions(database, references);
    const keptRuns = sqliteKeptRuns(database);
    return withOutagesAsUnavailable(
      {
        users: sqliteUsers(database, references, consentWriter, options.pageReadLimit ?? PAGE_READ_LIMIT),
        subscriptions,
        holds: sqliteHolds(database),
        temporaryAddresses: sqliteTemporaryAddresses(database),
        deliveryComplaints: sqliteDeliveryComplaints(database),
        consents: sqliteConsents(database, consentWriter),
        siteLicences: { ...sqliteSiteLicences(database), ...sqliteReaderSources(database, subscriptions) },
        seats: sqliteSeats(database),
        licenceUsage: sqliteLicenceUsage(database),
        deliveries: sqliteDeliveries(database, keptRuns),
        products: sqliteProducts(database),
        newsletters: sqliteNewsletters(database),
        credentials: sqliteCredentials(database),
        audit: sqliteAudit(database),
        idempotency: sqliteIdempotency(database),
        webhooks: sqliteWebhooks(database),
        signIns: sqliteSignIns(database),
        staff: sqliteStaff(database),
        passwordResets: sqlitePasswordResets(database),
        privacyRequests: sqlitePrivacyRequests(database),
        readerData: sqliteReaderData(database),
        retention: sqliteRetention(database),
        reports: sqliteReports(database),
        async ping() {
          ping.get();
        },
        copyInto: (path, copy) => copyDatabase(db, path, copy),
        async close() {
          await keptRuns.stop();
          group.commit();
          await database.longReads.close();
          db.close();
        },
      },
      () => group.settled(),
    );
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Makes the folder and the file, when they are new, readable by their owner only (0700, 0600):
 * they hold readers' personal data. SQLite gives its write-ahead log and shared memory files the
 * database file's mode. A folder or file that exists keeps the mode its owner gave it.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, constants.O_CREAT | constants.O_RDWR, 0o600));
}

/** Whether the file holds circulation's tables (a schema of any version): an empty file does not. */
function hasSchema(db: Database.Database): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined
  );
}

/**
 * Applies the migrations the file lacks, in one transaction; refuses a newer schema. When one of
 * them rebuilds a table (`rebuildsTables`), foreign keys are off while they run (a pragma that
 * only takes effect outside a transaction), every reference is checked before the transaction
 * commits, and they are then as they were.
 */
export function migrate(db: Database.Database, migrations: readonly SqliteMigration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT (unixepoch()))`);
  const appliedVersion = () =>
    (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const rebuilds = pendingMigrations(appliedVersion(), migrations).some((m) => m.rebuildsTables);
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) === 1;
  if (rebuilds && foreignKeys) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const m of pendingMigrations(appliedVersion(), migrations)) {
        db.exec(m.sql);
        m.fill?.(db);
        db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name);
      }
      if (rebuilds) {
        const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
        if (broken.length > 0) {
          const { table, parent } = broken[0] as { table: string; parent: string };
          throw new Error(`migrating left ${broken.length} rows of ${table} referring to no row of ${parent}`);
        }
      }
    }).immediate();
  } finally {
    if (rebuilds && foreignKeys) db.pragma('foreign_keys = ON');
  }
}
