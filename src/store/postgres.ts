/**
 * The PostgreSQL adapter: a pg pool, one round trip per call wherever a single statement can do
 * the work (data-modifying CTEs), and row locks where a change depends on what is stored. Every
 * subscription statement is keyed by user id, so it stays on one shard under Citus.
 */
import pg from 'pg';
import { emailKeys } from '../domain/email.js';
import { errors } from '../domain/errors.js';
import type { StoredSubscription, SubscriptionValues } from '../domain/subscription.js';
import { USER_FIELDS } from '../domain/user.js';
import { columnOf, toColumnValue, USER_COLUMNS } from './columns.js';
import { pendingMigrations, type Migration } from './migration.js';
import type { NewUser, Store, StoredUser, UserChanges, UserListQuery } from './port.js';
import { postgresMigrations } from './postgres-migrations.js';
import { toStoredSubscription, toStoredUser, type Row } from './rows.js';

export interface PostgresOptions {
  url: string;
  poolSize?: number;
  statementTimeoutMs?: number;
}

/** Any number will do, as long as no other program takes the same advisory lock. */
const MIGRATION_LOCK = 7_305_119_421;

const USER_SELECT = `
  SELECT id, email, ${USER_COLUMNS.join(', ')},
    ARRAY(SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id
          ORDER BY newsletter_id COLLATE "C") AS newsletters
  FROM users`;

const SUBSCRIPTION_COLUMNS = [
  'id',
  'user_id',
  'date_started',
  'date_ended',
  'external_identifier',
  'license',
  'resource',
  'trial',
  'expired',
  'product_id',
];
const SUBSCRIPTION_SELECT = `SELECT ${SUBSCRIPTION_COLUMNS.join(', ')} FROM subscriptions`;

export async function openPostgresStore(options: PostgresOptions): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    statement_timeout: options.statementTimeoutMs ?? 5000,
  });
  // An idle connection that drops is replaced on next use; unhandled, its error would end the process.
  pool.on('error', () => {});
  try {
    await migratePostgres(pool, postgresMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresStore(pool);
}

/**
 * Applies the migrations the database lacks, in one transaction, under an advisory lock: of
 * several processes starting at once, one migrates and the others then find nothing to do.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query('BEGIN');
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    for (const m of pendingMigrations(rows[0]?.v ?? 0, migrations)) {
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

class PostgresStore implements Store {
  constructor(private readonly pool: pg.Pool) {}

  private async rows(sql: string, params: unknown[]): Promise<Row[]> {
    return (await this.pool.query(sql, params)).rows as Row[];
  }

  async createUser(user: NewUser): Promise<StoredUser> {
    const keys = emailKeys(user.email);
    const values = [
      user.email,
      keys.lower,
      keys.domain,
      user.passwordHash,
      ...USER_FIELDS.map((f) => toColumnValue(f, user.fields[f])),
    ];
    const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
    const newsletters = `$${values.length + 1}::text[]`;
    const rows = await uniqueEmail(() =>
      this.rows(
        `WITH u AS (
           INSERT INTO users (email, email_lower, email_domain, password_hash, ${USER_COLUMNS.join(', ')})
           VALUES (${placeholders}) RETURNING id
         ), n AS (
           INSERT INTO user_newsletters (user_id, newsletter_id)
           SELECT u.id, x FROM u, unnest(${newsletters}) AS x ON CONFLICT DO NOTHING
         )
         SELECT id FROM u`,
        [...values, user.newsletters],
      ),
    );
    return (await this.getUser(String(rows[0]?.id))) as StoredUser;
  }

  async getUser(id: string): Promise<StoredUser | undefined> {
    const [row] = await this.rows(`${USER_SELECT} WHERE id = $1`, [id]);
    return row && toStoredUser(row);
  }

  async listUsers(query: UserListQuery): Promise<StoredUser[]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (query.email && 'address' in query.email) {
      params.push(query.email.address.toLowerCase());
      conditions.push(`email_lower = $${params.length}`);
    } else if (query.email) {
      params.push(query.email.domain.toLowerCase());
      conditions.push(`email_domain = $${params.length}`);
    }
    if (query.circulationNumber !== undefined) {
      params.push(query.circulationNumber);
      conditions.push(`circulation_number = $${params.length}`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    params.push(query.limit, query.offset);
    // The page's ids first (an index-only scan), then the rows: PostgreSQL would otherwise
    // compute every column, newsletters included, for each row that OFFSET skips.
    const sql = `
      WITH page AS (
        SELECT id FROM users ${where} ORDER BY id LIMIT $${params.length - 1} OFFSET $${params.length}
      )
      ${USER_SELECT} WHERE id IN (SELECT id FROM page) ORDER BY id`;
    return (await this.rows(sql, params)).map(toStoredUser);
  }

  async updateUser(id: string, changes: UserChanges): Promise<boolean> {
    const params: unknown[] = [id, changes.removeNewsletters, changes.addNewsletters];
    const sets = ['updated_at = now()'];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (changes.email !== undefined) {
      const keys = emailKeys(changes.email);
      set('email', changes.email);
      set('email_lower', keys.lower);
      set('email_domain', keys.domain);
    }
    if (changes.passwordHash !== undefined) set('password_hash', changes.passwordHash);
    for (const [field, value] of Object.entries(changes.fields)) set(columnOf(field), toColumnValue(field, value));
    // One statement: the row lock of the UPDATE orders concurrent changes to the same user.
    const rows = await uniqueEmail(() =>
      this.rows(
        `WITH u AS (
           UPDATE users SET ${sets.join(', ')} WHERE id = $1 RETURNING id
         ), removed AS (
           DELETE FROM user_newsletters WHERE user_id IN (SELECT id FROM u) AND newsletter_id = ANY($2::text[])
         ), added AS (
           INSERT INTO user_newsletters (user_id, newsletter_id)
           SELECT u.id, x FROM u, unnest($3::text[]) AS x ON CONFLICT DO NOTHING
         )
         SELECT count(*)::int AS n FROM u`,
        params,
      ),
    );
    return rows[0]?.n === 1;
  }

  async deleteUser(id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM users WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }

  async createSubscription(userId: string, values: SubscriptionValues): Promise<StoredSubscription | undefined> {
    try {
      const [row] = await this.rows(
        `INSERT INTO subscriptions (user_id, date_started, date_ended, external_identifier, license, resource,
           trial, product_id)
         SELECT $1::bigint, $2::timestamptz, $3::timestamptz, $4::text, $5::text, $6::text, $7::boolean, $8::text
         WHERE EXISTS (SELECT 1 FROM users WHERE id = $1::bigint)
         RETURNING ${SUBSCRIPTION_COLUMNS.join(', ')}`,
        subscriptionParams(userId, values),
      );
      return row && toStoredSubscription(row);
    } catch (error) {
      // The user was erased between the check and the insert.
      if ((error as { code?: string }).code === '23503') return undefined;
      throw error;
    }
  }

  async listSubscriptions(userId: string): Promise<StoredSubscription[] | undefined> {
    const rows = await this.rows(
      `SELECT ${SUBSCRIPTION_COLUMNS.map((c) => `s.${c}`).join(', ')}
       FROM users u LEFT JOIN subscriptions s ON s.user_id = u.id
       WHERE u.id = $1 ORDER BY s.id`,
      [userId],
    );
    if (rows.length === 0) return undefined;
    return rows.filter((r) => r.id !== null).map(toStoredSubscription);
  }

  async getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined> {
    const [row] = await this.rows(`${SUBSCRIPTION_SELECT} WHERE user_id = $1 AND id = $2`, [userId, id]);
    return row && toStoredSubscription(row);
  }

  async updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
  ): Promise<StoredSubscription | undefined> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(`${SUBSCRIPTION_SELECT} WHERE user_id = $1 AND id = $2 FOR UPDATE`, [
        userId,
        id,
      ]);
      if (rows.length === 0) {
        await client.query('ROLLBACK');
        return undefined;
      }
      const next = change(toStoredSubscription(rows[0] as Row));
      const updated = await client.query(
        `UPDATE subscriptions SET date_started = $2, date_ended = $3, external_identifier = $4, license = $5,
           resource = $6, trial = $7, product_id = $8, updated_at = now()
         WHERE user_id = $1 AND id = $9
         RETURNING ${SUBSCRIPTION_COLUMNS.join(', ')}`,
        [...subscriptionParams(userId, next), id],
      );
      await client.query('COMMIT');
      return toStoredSubscription(updated.rows[0] as Row);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async expireSubscription(userId: string, id: string, now: number): Promise<StoredSubscription | undefined> {
    await this.pool.query(
      `UPDATE subscriptions SET expired = true, date_ended = $3, updated_at = now()
       WHERE user_id = $1 AND id = $2 AND NOT expired`,
      [userId, id, new Date(now * 1000)],
    );
    return this.getSubscription(userId, id);
  }

  async deleteSubscription(userId: string, id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM subscriptions WHERE user_id = $1 AND id = $2', [userId, id]);
    return (result.rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Runs a write that may break the unique email index, turning that into the 422 it is. */
async function uniqueEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const e = error as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'users_email_lower') throw errors.emailTaken();
    throw error;
  }
}

function subscriptionParams(userId: string, v: SubscriptionValues): unknown[] {
  return [
    userId,
    new Date(v.dateStarted * 1000),
    v.dateEnded === null ? null : new Date(v.dateEnded * 1000),
    v.externalIdentifier,
    v.license,
    v.resource,
    v.trial,
    v.productId,
  ];
}
