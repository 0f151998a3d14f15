/**
 * Opening a PostgreSQL store: a pg pool with the statement timeout, the schema migrated to this
 * release under an advisory lock, how references to the catalogue are treated, and every kind of
 * record's statements composed into one `Store`.
 */
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { withOutagesAsUnavailable } from '../availability.js';
import { NoDatabase } from '../no-database.js';
import type { Store, StoreOptions } from '../port.js';
import { pendingMigrations } from '../sql/migrations.js';
import { PAGE_READ_LIMIT } from '../sql/users.js';
import { postgresAudit } from './audit.js';
import { keepUsersJsonText } from './user-text.js';
import { keepRunsByTrigger, postgresKeptRuns } from './kept-runs.js';
import { applyCitusLayout, CITUS_MIGRATION_MODE, CITUS_SESSION, isCitusCoordinator } from './citus.js';
import { listenForChanges } from './change-listener.js';
import { postgresCredentials } from './credentials.js';
import { MIGRATION_LOCK, PostgresDatabase } from './database.js';
import { postgresDeliveries } from './deliveries.js';
import { postgresDeliveryComplaints } from './delivery-complaints.js';
import { postgresHolds } from './holds.js';
import { postgresTemporaryAddresses } from './temporary-addresses.js';
import { postgresPrivacyRequests } from './privacy-requests.js';
import { postgresReaderData } from './reader-data.js';
import { postgresConsents } from './consents.js';
import { postgresSiteLicences } from './site-licences.js';
import { postgresIdempotency } from './idempotency.js';
import { knownUsers } from './known-users.js';
import { keptSiteKeys, seatHolders } from './licensed-domains.js';
import { postgresLicenceUsage } from './licence-usage.js';
import { postgresMigrations, type PostgresMigration } from './migrations.js';
import { postgresPasswordResets } from './password-resets.js';
import { postgresSignIns } from './sign-ins.js';
import { postgresStaff } from './staff.js';
import { postgresNewsletters } from './newsletters.js';
import { productResources } from './product-resources.js';
import { postgresReaderSources } from './reader-sources.js';
import { postgresSeats } from './seats.js';
import { postgresProducts } from './products.js';
import { postgresReferences } from './references.js';
import { postgresReports } from './reports.js';
import { postgresRetention } from './retention.js';
import { postgresSubscriptions } from './subscriptions.js';
import { postgresUsers } from './users.js';
import { postgresWebhooks } from './webhooks.js';

/**
 * Connections per process when DATABASE_POOL_SIZE is not set: two per core and one more (the
 * PostgreSQL wiki's rule of thumb), and never fewer than ten. More buy queueing on the server
 * rather than throughput; but a change holds its connection through its transaction, row-lock
 * waits included, so a pool as small as the cores lets a few requests queued on one reader's row
 * hold up every other request of the process until they time out (503).
 */
export const DEFAULT_POOL_SIZE = Math.max(10, 2 * availableParallelism() + 1);

export interface PostgresOptions extends StoreOptions {
  url: string;
  poolSize?: number;
  statementTimeoutMs?: number;
  /** How long to wait for a connection: past it, the request is a 503 rather than a hang. */
  connectTimeoutMs?: number;
}

export async function openPostgresStore(options: PostgresOptions): Promise<Store> {
  const statementTimeout = options.statementTimeoutMs ?? 5000;
  const connectTimeout = options.connectTimeoutMs ?? 2000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    statement_timeout: statementTimeout,
    // The server enforces the statement timeout; this one catches a server that went silent.
    query_timeout: statementTimeout + 2000,
    connectionTimeoutMillis: connectTimeout,
  });
  // An idle connection that drops is replaced on next use; unhandled, its error would end the process.
  pool.on('error', () => {});
  let citus: boolean;
  try {
    if (options.create === false && !(await hasSchema(pool))) throw new NoDatabase();
    citus = await migrateOn(options.url, connectTimeout);
    if (citus) {
      // On Citus, a statement that writes several shards and then a coordinator table (every
      // change writes the audit trail) must reach the shards over one connection per node.
      pool.on('connect', (client) => {
        client.query(CITUS_SESSION).catch(() => {});
      });
      await pool.query(CITUS_SESSION);
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  const database = new PostgresDatabase(pool, citus);
  const references = postgresReferences(options.strictReferences ?? false, citus);
  const changes = listenForChanges(options.url, connectTimeout);
  const resources = productResources(database, changes);
  const users = knownUsers(database, changes);
  const siteKeys = keptSiteKeys(database, changes);
  const holders = seatHolders(database, changes);
  const subscriptions = postgresSubscriptions(database, references, resources, users, siteKeys);
  const keptRuns = citus ? undefined : postgresKeptRuns(database);
  return withOutagesAsUnavailable({
    users: postgresUsers(database, references, users, options.pageReadLimit ?? PAGE_READ_LIMIT, siteKeys),
    subscriptions,
    holds: postgresHolds(database),
    temporaryAddresses: postgresTemporaryAddresses(database),
    deliveryComplaints: postgresDeliveryComplaints(database),
    consents: postgresConsents(database, users),
    siteLicences: {
      ...postgresSiteLicences(database, siteKeys.prefixLengths),
      ...postgresReaderSources(database, siteKeys.domains, holders, resources, subscriptions),
    },
    seats: postgresSeats(database, holders),
    licenceUsage: postgresLicenceUsage(database),
    deliveries: postgresDeliveries(database, keptRuns),
    products: postgresProducts(database, resources),
    newsletters: postgresNewsletters(database),
    credentials: postgresCredentials(database, changes),
    audit: postgresAudit(database),
    idempotency: postgresIdempotency(database),
    webhooks: postgresWebhooks(database),
    signIns: postgresSignIns(database),
    staff: postgresStaff(database),
    passwordResets: postgresPasswordResets(database),
    privacyRequests: postgresPrivacyRequests(database),
    readerData: postgresReaderData(database),
    retention: postgresRetention(database),
    reports: postgresReports(database),
    async ping() {
      await pool.query('SELECT 1');
    },
    poolStats() {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    },
    async close() {
      await keptRuns?.stop();
      await changes.close();
      await pool.end();
    },
  });
}

/** Whether the connection's schema holds circulation's tables (of any version): a new, empty one does not. */
async function hasSchema(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ table: string | null }>("SELECT to_regclass('schema_migrations') AS table");
  return rows[0]?.table != null;
}

/**
 * How long a starting process waits for another's migrations, and how long one statement of its
 * own migrations (an index built over a large table, Citus distributing one) may take, before it
 * gives up: not a request's statement timeout.
 */
const MIGRATION_TIMEOUT_MS = 10 * 60_000;
const MIGRATION_TIMEOUT = `${MIGRATION_TIMEOUT_MS}ms`;

/**
 * Migrates over a connection of its own, whose queries the client lets run as long as
 * MIGRATION_TIMEOUT too (the pool's requests cut theirs short after their statement timeout).
 */
async function migrateOn(url: string, connectTimeoutMs: number): Promise<boolean> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    query_timeout: MIGRATION_TIMEOUT_MS + 2000,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  pool.on('error', () => {});
  try {
    return await migratePostgres(pool, postgresMigrations, async (client, citus) => {
      await keepUsersJsonText(client);
      await keepRunsByTrigger(client, citus);
    });
  } finally {
    await pool.end();
  }
}

/**
 * Applies the migrations the database lacks, in one transaction, under an advisory lock: of
 * several processes starting at once, one migrates and the others then find nothing to do.
 * On a Citus coordinator it then lays the tables out (see citus.ts); true when it is one.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly PostgresMigration[],
  /** What else is made from this release's code once the tables are in place (triggers it writes), under the lock. */
  thenMake?: (client: pg.PoolClient, citus: boolean) => Promise<unknown>,
): Promise<boolean> {
  const client = await pool.connect();
  try {
    // The wait for another process's migrations (and, on Citus, its layout of every table), and
    // each statement of ours, are bounded by MIGRATION_TIMEOUT, not by a request's timeout; the
    // connection goes back to the pool with it reset.
    await client.query(`SET statement_timeout = '${MIGRATION_TIMEOUT}'`);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query('BEGIN');
    // On Citus, a migration that changes a distributed table and then reads a reference table
    // (migration 38 does) must have changed its shards over the connections it reads on. A
    // single server keeps the setting as a name it ignores.
    await client.query(CITUS_MIGRATION_MODE);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    for (const m of pendingMigrations(rows[0]?.v ?? 0, migrations)) {
      await client.query(m.sql);
      await m.fill?.(client);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    await unlock(client);
    throw error;
  }
  try {
    // Still under the lock: one process lays the tables out, the others find them laid out.
    const citus = await isCitusCoordinator(client);
    if (citus) await applyCitusLayout(client);
    await thenMake?.(client, citus);
    return citus;
  } finally {
    await unlock(client);
  }
}

async function unlock(client: pg.PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
  await client.query('RESET statement_timeout').catch(() => {});
  client.release();
}
