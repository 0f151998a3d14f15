/**
 * The PostgreSQL adapter: a pg pool, one round trip per call wherever a single statement can do
 * the work (data-modifying CTEs), and row locks where a change depends on what is stored. Every
 * subscription statement is keyed by user id, so it stays on one shard under Citus.
 */
import pg from 'pg';
import type { ApiKey, StoredApiKey } from '../../domain/api-key.js';
import type { AuditAction, AuditContext, AuditEvent } from '../../domain/audit.js';
import { emailKeys } from '../../domain/email.js';
import { errors } from '../../domain/errors.js';
import type { StoredSubscription, SubscriptionValues } from '../../domain/subscription.js';
import { USER_FIELDS } from '../../domain/user.js';
import { columnOf, toColumnValue, USER_COLUMNS } from '../sql/columns.js';
import { withOutagesAsUnavailable } from '../availability.js';
import { pendingMigrations, type Migration } from '../sql/migrations.js';
import type { Webhook, WebhookDelivery } from '../../domain/webhooks.js';
import type {
  AuditQuery,
  ClaimedDelivery,
  DeliveryOutcome,
  DeliveryQuery,
  IdempotencyState,
  IfVersion,
  ImportedUser,
  KeptResponse,
  NewApiKey,
  NewUser,
  NewWebhook,
  PoolStats,
  Store,
  StoredUser,
  UserChanges,
  UserListQuery,
  WebhookChanges,
} from '../port.js';
import { postgresMigrations } from './migrations.js';
import {
  API_KEY_COLUMNS,
  AUDIT_COLUMNS,
  CLAIMED_DELIVERY_COLUMNS,
  DELIVERY_COLUMNS,
  idempotencyState,
  toApiKey,
  toAuditEvent,
  toClaimedDelivery,
  toStoredSubscription,
  toStoredUser,
  toWebhook,
  toWebhookDelivery,
  WEBHOOK_COLUMNS,
  type Row,
} from '../sql/rows.js';

export interface PostgresOptions {
  url: string;
  poolSize?: number;
  statementTimeoutMs?: number;
  /** How long to wait for a connection: past it, the request is a 503 rather than a hang. */
  connectTimeoutMs?: number;
}

/** Any number will do, as long as no other program takes the same advisory lock. */
const MIGRATION_LOCK = 7_305_119_421;

const USER_SELECT = `
  SELECT id, email, ${USER_COLUMNS.join(', ')},
    ARRAY(SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id
          ORDER BY newsletter_id COLLATE "C") AS newsletters, version
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
  'version',
];
const SUBSCRIPTION_SELECT = `SELECT ${SUBSCRIPTION_COLUMNS.join(', ')} FROM subscriptions`;

export async function openPostgresStore(options: PostgresOptions): Promise<Store> {
  const statementTimeout = options.statementTimeoutMs ?? 5000;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    statement_timeout: statementTimeout,
    // The server enforces the statement timeout; this one catches a server that went silent.
    query_timeout: statementTimeout + 2000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
  });
  // An idle connection that drops is replaced on next use; unhandled, its error would end the process.
  pool.on('error', () => {});
  try {
    await migratePostgres(pool, postgresMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return withOutagesAsUnavailable(new PostgresStore(pool));
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

  async createUser(user: NewUser, audit: AuditContext): Promise<StoredUser> {
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
    const params = [...values, user.newsletters];
    const record = auditInsert(params, audit, 'create', 'users', 'id', 'id', 'u');
    const rows = await uniqueEmail(() =>
      this.rows(
        `WITH u AS (
           INSERT INTO users (email, email_lower, email_domain, password_hash, ${USER_COLUMNS.join(', ')})
           VALUES (${placeholders}) RETURNING id
         ), n AS (
           INSERT INTO user_newsletters (user_id, newsletter_id)
           SELECT u.id, x FROM u, unnest(${newsletters}) AS x ON CONFLICT DO NOTHING
         ), a AS (${record})
         SELECT id FROM u`,
        params,
      ),
    );
    return (await this.getUser(String(rows[0]?.id))) as StoredUser;
  }

  async importUsers(batch: readonly ImportedUser[], audit: AuditContext | null): Promise<string[]> {
    if (batch.length === 0) return [];
    const columns = ['email', 'email_lower', 'email_domain', 'password_hash', ...USER_COLUMNS];
    const values: unknown[][] = columns.map(() => []);
    for (const { user } of batch) {
      const keys = emailKeys(user.email);
      const row: unknown[] = [user.email, keys.lower, keys.domain, user.passwordHash];
      for (const field of USER_FIELDS) row.push(toColumnValue(field, user.fields[field]));
      row.forEach((value, i) => values[i]!.push(value));
    }
    const types = columns.map((c) => (c === 'demographics' ? 'jsonb[]' : 'text[]'));
    return this.transaction(async (client) => {
      // One statement per table for the whole batch: arrays zipped by unnest.
      const { rows } = await uniqueEmail(() =>
        client.query<{ id: string; email_lower: string }>(
          `INSERT INTO users (${columns.join(', ')})
           SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')})
           RETURNING id, email_lower`,
          values,
        ),
      );
      const idOf = new Map(rows.map((r) => [r.email_lower, r.id]));
      const ids = batch.map(({ user }) => idOf.get(emailKeys(user.email).lower) as string);
      const newsletters = batch.flatMap(({ user }, i) => user.newsletters.map((n) => [ids[i], n]));
      if (newsletters.length > 0) {
        await client.query(
          `INSERT INTO user_newsletters (user_id, newsletter_id)
           SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT DO NOTHING`,
          [newsletters.map((n) => n[0]), newsletters.map((n) => n[1])],
        );
      }
      const subscriptions = batch.flatMap(({ subscriptions }, i) =>
        subscriptions.map((v) => subscriptionParams(ids[i] as string, v)),
      );
      if (subscriptions.length > 0) {
        await client.query(
          `INSERT INTO subscriptions (user_id, date_started, date_ended, external_identifier, license, resource,
             trial, product_id)
           SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[],
             $6::text[], $7::boolean[], $8::text[])`,
          Array.from({ length: 8 }, (_, column) => subscriptions.map((params) => params[column])),
        );
      }
      if (audit) {
        await client.query(
          `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
           SELECT $1, 'create', 'users', id, id, $2::text[] FROM unnest($3::text[]) AS id`,
          [audit.actor, audit.attributes, ids],
        );
      }
      return ids;
    });
  }

  /** Runs `work` in a transaction on one pooled connection; rolls back when it throws. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async userIdsByEmail(emails: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.rows('SELECT id, email_lower FROM users WHERE email_lower = ANY($1::text[])', [
      emails.map((e) => e.toLowerCase()),
    ]);
    return new Map(rows.map((r) => [r.email_lower as string, String(r.id)]));
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
    if (query.afterId !== undefined) {
      params.push(query.afterId);
      conditions.push(`id ${query.descending ? '<' : '>'} $${params.length}`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    params.push(query.limit, query.offset);
    const order = query.descending ? 'DESC' : 'ASC';
    // The page's ids first (an index-only scan), then the rows: PostgreSQL would otherwise
    // compute every column, newsletters included, for each row that OFFSET skips.
    const sql = `
      WITH page AS (
        SELECT id FROM users ${where} ORDER BY id ${order} LIMIT $${params.length - 1} OFFSET $${params.length}
      )
      ${USER_SELECT} WHERE id IN (SELECT id FROM page) ORDER BY id ${order}`;
    return (await this.rows(sql, params)).map(toStoredUser);
  }

  async updateUser(id: string, changes: UserChanges, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    const params: unknown[] = [id, changes.removeNewsletters, changes.addNewsletters];
    const sets = ['updated_at = now()', 'version = version + 1'];
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
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, 'update', 'users', 'id', 'id', 'u');
    // One statement: the row lock of the UPDATE orders concurrent changes to the same user.
    const rows = await uniqueEmail(() =>
      this.rows(
        `WITH u AS (
           UPDATE users SET ${sets.join(', ')} WHERE id = $1 ${condition} RETURNING id
         ), removed AS (
           DELETE FROM user_newsletters WHERE user_id IN (SELECT id FROM u) AND newsletter_id = ANY($2::text[])
         ), added AS (
           INSERT INTO user_newsletters (user_id, newsletter_id)
           SELECT u.id, x FROM u, unnest($3::text[]) AS x ON CONFLICT DO NOTHING
         ), a AS (${record})
         SELECT count(*)::int AS n FROM u`,
        params,
      ),
    );
    return rows[0]?.n === 1 || (await this.refusedOrMissing('users', 'id = $1', [id], ifVersion));
  }

  /**
   * After a conditional write changed no row: false when the row does not exist (a 404), the
   * 412 when it exists at another version than the precondition named.
   */
  private async refusedOrMissing(table: string, where: string, params: unknown[], ifVersion: IfVersion) {
    if (ifVersion === undefined) return false;
    const rows = await this.rows(`SELECT 1 FROM ${table} WHERE ${where}`, params);
    if (rows.length > 0) throw errors.preconditionFailed();
    return false;
  }

  async deleteUser(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return this.deleteRow('users', 'id = $1', [id], 'id', audit, ifVersion);
  }

  /**
   * Deletes the row of `table` that `where` names (with `keys` as $1…), if it is at a version the
   * precondition names, and records it under the table's name, in one statement; false when there
   * was no such row, the 412 when there is one at another version.
   */
  private async deleteRow(
    table: string,
    where: string,
    keys: unknown[],
    userIdColumn: string,
    audit: AuditContext,
    ifVersion: IfVersion,
  ): Promise<boolean> {
    const params = [...keys];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, 'delete', table, 'id', userIdColumn, 'd');
    const rows = await this.rows(
      `WITH d AS (DELETE FROM ${table} WHERE ${where} ${condition} RETURNING *), a AS (${record})
       SELECT count(*)::int AS n FROM d`,
      params,
    );
    return rows[0]?.n === 1 || (await this.refusedOrMissing(table, where, keys, ifVersion));
  }

  async createSubscription(
    userId: string,
    values: SubscriptionValues,
    audit: AuditContext,
  ): Promise<StoredSubscription | undefined> {
    const params = subscriptionParams(userId, values);
    const record = auditInsert(params, audit, 'create', 'subscriptions', 'id', 'user_id', 's');
    try {
      const [row] = await this.rows(
        `WITH s AS (
           INSERT INTO subscriptions (user_id, date_started, date_ended, external_identifier, license, resource,
             trial, product_id)
           SELECT $1::bigint, $2::timestamptz, $3::timestamptz, $4::text, $5::text, $6::text, $7::boolean, $8::text
           WHERE EXISTS (SELECT 1 FROM users WHERE id = $1::bigint)
           RETURNING ${SUBSCRIPTION_COLUMNS.join(', ')}
         ), a AS (${record})
         SELECT * FROM s`,
        params,
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

  async listSubscriptionsOfUsers(userIds: readonly string[]): Promise<StoredSubscription[]> {
    const rows = await this.rows(`${SUBSCRIPTION_SELECT} WHERE user_id = ANY($1::bigint[]) ORDER BY id`, [userIds]);
    return rows.map(toStoredSubscription);
  }

  async getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined> {
    const [row] = await this.rows(`${SUBSCRIPTION_SELECT} WHERE user_id = $1 AND id = $2`, [userId, id]);
    return row && toStoredSubscription(row);
  }

  async updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    return this.transaction(async (client) => {
      const { rows } = await client.query(`${SUBSCRIPTION_SELECT} WHERE user_id = $1 AND id = $2 FOR UPDATE`, [
        userId,
        id,
      ]);
      if (rows.length === 0) return undefined;
      const current = toStoredSubscription(rows[0] as Row);
      if (ifVersion !== undefined && !ifVersion.includes(current.version)) throw errors.preconditionFailed();
      const next = change(current);
      const params = [...subscriptionParams(userId, next), id];
      const record = auditInsert(params, audit, 'update', 'subscriptions', 'id', 'user_id', 's');
      const updated = await client.query(
        `WITH s AS (
           UPDATE subscriptions SET date_started = $2, date_ended = $3, external_identifier = $4, license = $5,
             resource = $6, trial = $7, product_id = $8, version = version + 1, updated_at = now()
           WHERE user_id = $1 AND id = $9
           RETURNING ${SUBSCRIPTION_COLUMNS.join(', ')}
         ), a AS (${record})
         SELECT * FROM s`,
        params,
      );
      return toStoredSubscription(updated.rows[0] as Row);
    });
  }

  async expireSubscription(
    userId: string,
    id: string,
    now: number,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    const params: unknown[] = [userId, id, new Date(now * 1000)];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, 'expire', 'subscriptions', 'id', 'user_id', 'e');
    // One statement; without a precondition an expired subscription is simply left as it is,
    // with one it must also be at a named version (checked below when nothing was expired).
    const [row] = await this.rows(
      `WITH target AS (
         SELECT user_id, id FROM subscriptions WHERE user_id = $1 AND id = $2 ${condition} FOR UPDATE
       ), e AS (
         UPDATE subscriptions s SET expired = true, date_ended = $3, version = s.version + 1, updated_at = now()
         FROM target WHERE s.user_id = target.user_id AND s.id = target.id AND NOT s.expired
         RETURNING s.id, s.user_id
       ), a AS (${record})
       SELECT count(*)::int AS matched FROM target`,
      params,
    );
    if (Number(row?.matched ?? 0) === 0) {
      await this.refusedOrMissing('subscriptions', 'user_id = $1 AND id = $2', [userId, id], ifVersion);
      if (ifVersion === undefined) return undefined;
    }
    return this.getSubscription(userId, id);
  }

  async deleteSubscription(userId: string, id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return this.deleteRow('subscriptions', 'user_id = $1 AND id = $2', [userId, id], 'user_id', audit, ifVersion);
  }

  async lapseSubscriptions(now: number, audit: AuditContext, limit: number): Promise<number> {
    const params: unknown[] = [new Date(now * 1000), limit];
    const record = auditInsert(params, audit, 'expire', 'subscriptions', 'id', 'user_id', 'l');
    // SKIP LOCKED: processes lapsing at once take different subscriptions, never the same twice.
    const rows = await this.rows(
      `WITH due AS (
         SELECT user_id, id FROM subscriptions WHERE NOT expired AND date_ended <= $1
         ORDER BY date_ended LIMIT $2 FOR UPDATE SKIP LOCKED
       ), l AS (
         UPDATE subscriptions s SET expired = true, version = s.version + 1, updated_at = now()
         FROM due WHERE s.user_id = due.user_id AND s.id = due.id
         RETURNING s.id, s.user_id
       ), a AS (${record})
       SELECT count(*)::int AS n FROM l`,
      params,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async createApiKey(key: NewApiKey, audit: AuditContext): Promise<ApiKey> {
    const params: unknown[] = [key.name, key.scopes, key.rateLimit, key.secretHash];
    const record = auditInsert(params, audit, 'create', 'api-keys', 'id', 'NULL', 'k');
    const [row] = await this.rows(
      `WITH k AS (
         INSERT INTO api_keys (name, scopes, rate_limit, secret_hash) VALUES ($1, $2, $3, $4)
         RETURNING ${API_KEY_COLUMNS}
       ), a AS (${record})
       SELECT * FROM k`,
      params,
    );
    return toApiKey(row as Row);
  }

  async createFirstApiKey(key: NewApiKey): Promise<ApiKey | undefined> {
    return this.transaction(async (client) => {
      // Serializes first starts of several processes: only one of them sees an empty table.
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rows } = await client.query(
        `INSERT INTO api_keys (name, scopes, rate_limit, secret_hash)
         SELECT $1, $2, $3, $4 WHERE NOT EXISTS (SELECT 1 FROM api_keys)
         RETURNING ${API_KEY_COLUMNS}`,
        [key.name, key.scopes, key.rateLimit, key.secretHash],
      );
      return rows[0] && toApiKey(rows[0] as Row);
    });
  }

  async getApiKey(id: string): Promise<StoredApiKey | undefined> {
    const [row] = await this.rows(`SELECT ${API_KEY_COLUMNS}, secret_hash FROM api_keys WHERE id = $1`, [id]);
    return row && { ...toApiKey(row), secretHash: row.secret_hash as Buffer };
  }

  async listApiKeys(): Promise<ApiKey[]> {
    return (await this.rows(`SELECT ${API_KEY_COLUMNS} FROM api_keys ORDER BY id`, [])).map(toApiKey);
  }

  async revokeApiKey(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion): Promise<ApiKey | undefined> {
    const params: unknown[] = [id, new Date(now * 1000)];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, 'revoke', 'api-keys', 'id', 'NULL', 'r');
    const [revoked] = await this.rows(
      `WITH r AS (
         UPDATE api_keys SET revoked_at = $2, version = version + 1
         WHERE id = $1 AND revoked_at IS NULL ${condition} RETURNING id
       ), a AS (${record})
       SELECT count(*)::int AS n FROM r`,
      params,
    );
    const [row] = await this.rows(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    if (!row) return undefined;
    const key = toApiKey(row);
    // Nothing revoked: already revoked, or (with a precondition) at a version it does not name.
    if (revoked?.n === 0 && ifVersion !== undefined && !ifVersion.includes(key.version)) {
      throw errors.preconditionFailed();
    }
    return key;
  }

  async listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    const params: unknown[] = [query.afterId ?? 0];
    const conditions = ['id > $1'];
    for (const [column, value] of [
      ['actor', query.actor],
      ['resource_type', query.resourceType],
      ['resource_id', query.resourceId],
      ['user_id', query.userId],
    ] as const) {
      if (value === undefined) continue;
      params.push(value);
      conditions.push(`${column} = $${params.length}`);
    }
    if (query.kinds) {
      const pairs = query.kinds.map((kind) => {
        params.push(kind.resourceType, kind.action);
        return `(resource_type = $${params.length - 1} AND action = $${params.length})`;
      });
      conditions.push(`(${pairs.join(' OR ') || 'FALSE'})`);
    }
    params.push(query.limit);
    const rows = await this.rows(
      `SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toAuditEvent);
  }

  async claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState> {
    return this.transaction(async (client) => {
      await client.query('DELETE FROM idempotency_keys WHERE created_at < $1', [now - limits.keepFor]);
      const inserted = await client.query(
        `INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [scope, key, fingerprint, now],
      );
      if (inserted.rowCount === 1) return { state: 'new' };
      // Another request holds the key: read it under a row lock, so a takeover happens once.
      const { rows } = await client.query('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2 FOR UPDATE', [
        scope,
        key,
      ]);
      const takeOver = () =>
        client.query('UPDATE idempotency_keys SET created_at = $1 WHERE scope = $2 AND key = $3', [now, scope, key]);
      const state = idempotencyState(rows[0] as Row, fingerprint, now, limits.staleAfter, () => undefined);
      if (state.state === 'new') await takeOver();
      return state;
    });
  }

  async finishIdempotencyKey(scope: string, key: string, response: KeptResponse | null): Promise<void> {
    if (response) {
      await this.pool.query(
        'UPDATE idempotency_keys SET status = $1, headers = $2, body = $3 WHERE scope = $4 AND key = $5',
        [response.status, JSON.stringify(response.headers), response.body, scope, key],
      );
    } else {
      await this.pool.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]);
    }
  }

  async createWebhook(webhook: NewWebhook, audit: AuditContext): Promise<Webhook> {
    const params: unknown[] = [webhook.url, webhook.events, webhook.secretSalt];
    const record = auditInsert(params, audit, 'create', 'webhooks', 'id', 'NULL', 'w');
    const [row] = await this.rows(
      `WITH w AS (
         INSERT INTO webhooks (url, events, secret_salt) VALUES ($1, $2, $3) RETURNING ${WEBHOOK_COLUMNS}
       ), a AS (${record})
       SELECT * FROM w`,
      params,
    );
    return toWebhook(row as Row);
  }

  async getWebhook(id: string): Promise<Webhook | undefined> {
    const [row] = await this.rows(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1`, [id]);
    return row && toWebhook(row);
  }

  async listWebhooks(): Promise<Webhook[]> {
    return (await this.rows(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`, [])).map(toWebhook);
  }

  async updateWebhook(
    id: string,
    changes: WebhookChanges,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Webhook | undefined> {
    const params: unknown[] = [id, changes.url ?? null, changes.events ?? null];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, 'update', 'webhooks', 'id', 'NULL', 'w');
    const [row] = await this.rows(
      `WITH w AS (
         UPDATE webhooks SET url = coalesce($2, url), events = coalesce($3::text[], events),
           version = version + 1, updated_at = now()
         WHERE id = $1 ${condition} RETURNING ${WEBHOOK_COLUMNS}
       ), a AS (${record})
       SELECT * FROM w`,
      params,
    );
    if (row) return toWebhook(row);
    await this.refusedOrMissing('webhooks', 'id = $1', [id], ifVersion);
    return undefined;
  }

  async deleteWebhook(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return this.deleteRow('webhooks', 'id = $1', [id], 'NULL', audit, ifVersion);
  }

  async listWebhookDeliveries(webhookId: string, query: DeliveryQuery): Promise<WebhookDelivery[] | undefined> {
    // The webhook's row comes first, so that "no such webhook" and "no deliveries" differ.
    const rows = await this.rows(
      `SELECT w.id AS owner, d.* FROM webhooks w
       LEFT JOIN LATERAL (
         SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
         WHERE webhook_id = w.id AND id > $2 AND ($3::text IS NULL OR state = $3)
         ORDER BY id LIMIT $4
       ) d ON true
       WHERE w.id = $1`,
      [webhookId, query.afterId ?? 0, query.state ?? null, query.limit],
    );
    if (rows.length === 0) return undefined;
    return rows.filter((r) => r.id !== null).map(toWebhookDelivery);
  }

  async claimWebhookDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    // SKIP LOCKED: dispatchers claiming at once take different deliveries; the lease then keeps
    // a delivery from a second dispatcher while its attempt runs, after this statement commits.
    const rows = await this.rows(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
         WHERE d.state = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until <= $1)
           AND NOT EXISTS (
             SELECT 1 FROM webhook_deliveries e
             WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.user_id = d.user_id
               AND e.event_id < d.event_id)
         ORDER BY d.next_attempt_at, d.id LIMIT $3
         FOR UPDATE SKIP LOCKED
       ), d AS (
         UPDATE webhook_deliveries d SET attempts = d.attempts + 1, locked_until = $1 + $2, last_attempt_at = $1,
           version = d.version + 1
         FROM due WHERE d.id = due.id
         RETURNING d.*
       )
       SELECT ${CLAIMED_DELIVERY_COLUMNS} FROM d
       JOIN webhooks w ON w.id = d.webhook_id JOIN audit_log a ON a.id = d.event_id
       ORDER BY d.next_attempt_at, d.id`,
      [now, leaseMs, limit],
    );
    return rows.map(toClaimedDelivery);
  }

  async finishWebhookDelivery(id: string, claimedVersion: number, outcome: DeliveryOutcome): Promise<boolean> {
    const [row] = await this.rows(
      `WITH f AS (
         UPDATE webhook_deliveries SET state = $2, locked_until = NULL, next_attempt_at = $3, last_status = $4,
           last_error = $5, delivered_at = CASE WHEN $2 = 'delivered' THEN $6 ELSE delivered_at END,
           version = version + 1
         WHERE id = $1 AND state = 'pending' AND version = $7
         RETURNING webhook_id, user_id, event_id
       ), held AS (
         UPDATE webhook_deliveries q SET next_attempt_at = $3
         FROM f WHERE $3::bigint IS NOT NULL AND q.webhook_id = f.webhook_id AND q.user_id = f.user_id
           AND q.state = 'pending' AND q.event_id > f.event_id AND q.next_attempt_at < $3
       )
       SELECT count(*)::int AS n FROM f`,
      [id, outcome.state, outcome.nextAttemptAt, outcome.status, outcome.error, outcome.at, claimedVersion],
    );
    return row?.n === 1;
  }

  async getWebhookDelivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
    const [row] = await this.rows(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2`,
      [webhookId, id],
    );
    return row && toWebhookDelivery(row);
  }

  async redeliverWebhookDelivery(webhookId: string, id: string, now: number): Promise<WebhookDelivery | undefined> {
    const [row] = await this.rows(
      `WITH r AS (
         UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $3, locked_until = NULL,
           delivered_at = NULL, version = version + 1
         WHERE webhook_id = $1 AND id = $2 AND state <> 'pending'
         RETURNING ${DELIVERY_COLUMNS}
       )
       SELECT * FROM r UNION ALL
       SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM r)`,
      [webhookId, id, now],
    );
    return row && toWebhookDelivery(row);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The SQL condition of a precondition on the row version (none without one); adds its parameter. */
function versionCondition(params: unknown[], ifVersion: IfVersion): string {
  if (ifVersion === undefined) return '';
  params.push(ifVersion);
  return `AND version = ANY($${params.length}::int[])`;
}

/**
 * The statement that records a change in the audit trail, as part of the statement making it:
 * one row for each row of `source` (none when the change changed nothing). Adds its parameters.
 */
function auditInsert(
  params: unknown[],
  audit: AuditContext,
  action: AuditAction,
  resourceType: string,
  idColumn: string,
  userIdColumn: string,
  source: string,
): string {
  params.push(audit.actor, audit.attributes);
  const actor = `$${params.length - 1}::text`;
  const attributes = `$${params.length}::text[]`;
  return `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
    SELECT ${actor}, '${action}', '${resourceType}', ${idColumn}::text, ${userIdColumn}::text, ${attributes} FROM ${source}`;
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
