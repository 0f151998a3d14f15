/**
 * The SQLite adapter: one better-sqlite3 connection in WAL mode. Calls are synchronous, so each
 * method (and each `transaction`) runs without any other request's statements in between;
 * statements are prepared once and reused, because preparing costs more than running them.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ApiKey, StoredApiKey } from '../../domain/api-key.js';
import type { AuditAction, AuditContext, AuditEvent } from '../../domain/audit.js';
import { emailKeys } from '../../domain/email.js';
import { errors } from '../../domain/errors.js';
import type { StoredSubscription, SubscriptionValues } from '../../domain/subscription.js';
import { USER_FIELDS } from '../../domain/user.js';
import { columnOf, fieldsOfValues, toColumnValue, USER_COLUMNS } from '../sql/columns.js';
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
  toWebhook,
  toWebhookDelivery,
  WEBHOOK_COLUMNS,
  type Row,
} from '../sql/rows.js';
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
  Store,
  StoredUser,
  UserChanges,
  UserListQuery,
  WebhookChanges,
} from '../port.js';
import { withOutagesAsUnavailable } from '../availability.js';
import { pendingMigrations, type Migration } from '../sql/migrations.js';
import { sqliteMigrations } from './migrations.js';

export type SqliteSynchronous = 'NORMAL' | 'FULL';

export interface SqliteOptions {
  /** A file path, or `:memory:`. */
  path: string;
  /** NORMAL survives a crash of the process; FULL also survives a loss of power. */
  synchronous?: SqliteSynchronous;
  /**
   * How long a statement waits for a lock another process holds. The wait blocks this process
   * (the driver is synchronous), so it is short; past it the request is a 503.
   */
  busyTimeoutMs?: number;
}

const USER_SELECT = `
  SELECT id, email, ${USER_COLUMNS.join(', ')},
    (SELECT json_group_array(newsletter_id) FROM
      (SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id ORDER BY newsletter_id)
    ) AS newsletters, version
  FROM users`;

const SUBSCRIPTION_COLUMNS = `id, user_id, date_started, date_ended, external_identifier, license, resource,
  trial, expired, product_id, version`;

export function openSqliteStore(options: SqliteOptions): Store {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 1000}`);
    migrate(db, sqliteMigrations);
    return withOutagesAsUnavailable(new SqliteStore(db));
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Applies the migrations the file lacks, in one transaction; refuses a newer schema. */
export function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL DEFAULT (unixepoch()))`);
  db.transaction(() => {
    const applied = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
    for (const m of pendingMigrations(applied.v ?? 0, migrations)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name);
    }
  }).immediate();
}

class SqliteStore implements Store {
  private readonly statements;
  private readonly listStatements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    const profileColumns = USER_COLUMNS.join(', ');
    const profileParams = USER_COLUMNS.map((c) => `@${c}`).join(', ');
    this.statements = {
      insertUser: db.prepare(`
        INSERT INTO users (email, email_lower, email_domain, password_hash, ${profileColumns})
        VALUES (@email, @email_lower, @email_domain, @password_hash, ${profileParams})`),
      getUser: db.prepare(`${USER_SELECT} WHERE id = ?`).raw(),
      getUserRow: db.prepare(`
        SELECT email, email_lower, email_domain, password_hash, version, ${profileColumns} FROM users WHERE id = ?`),
      updateUser: db.prepare(`
        UPDATE users SET email = @email, email_lower = @email_lower, email_domain = @email_domain,
          password_hash = @password_hash, ${USER_COLUMNS.map((c) => `${c} = @${c}`).join(', ')},
          version = version + 1, updated_at = unixepoch()
        WHERE id = @id`),
      deleteUser: db.prepare('DELETE FROM users WHERE id = ?'),
      userVersion: db.prepare('SELECT version FROM users WHERE id = ?').pluck(),
      subscriptionVersion: db.prepare('SELECT version FROM subscriptions WHERE user_id = ? AND id = ?').pluck(),
      addNewsletter: db.prepare('INSERT OR IGNORE INTO user_newsletters (user_id, newsletter_id) VALUES (?, ?)'),
      removeNewsletter: db.prepare('DELETE FROM user_newsletters WHERE user_id = ? AND newsletter_id = ?'),
      insertSubscription: db.prepare(`
        INSERT INTO subscriptions (user_id, date_started, date_ended, external_identifier, license, resource,
          trial, product_id)
        SELECT @user_id, @date_started, @date_ended, @external_identifier, @license, @resource, @trial, @product_id
        WHERE EXISTS (SELECT 1 FROM users WHERE id = @user_id)
        RETURNING ${SUBSCRIPTION_COLUMNS}`),
      importSubscription: db.prepare(`
        INSERT INTO subscriptions (user_id, date_started, date_ended, external_identifier, license, resource,
          trial, product_id)
        VALUES (@user_id, @date_started, @date_ended, @external_identifier, @license, @resource, @trial, @product_id)`),
      listSubscriptions: db.prepare(`
        SELECT u.id AS owner, ${SUBSCRIPTION_COLUMNS.split(',')
          .map((c) => `s.${c.trim()}`)
          .join(', ')}
        FROM users u LEFT JOIN subscriptions s ON s.user_id = u.id
        WHERE u.id = ? ORDER BY s.id`),
      idsByEmail: db.prepare('SELECT id, email_lower FROM users WHERE email_lower IN (SELECT value FROM json_each(?))'),
      subscriptionsOfUsers: db.prepare(`
        SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions
        WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY id`),
      getSubscription: db.prepare(`SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE user_id = ? AND id = ?`),
      updateSubscription: db.prepare(`
        UPDATE subscriptions SET date_started = @date_started, date_ended = @date_ended,
          external_identifier = @external_identifier, license = @license, resource = @resource,
          trial = @trial, product_id = @product_id, version = version + 1, updated_at = unixepoch()
        WHERE user_id = @user_id AND id = @id
        RETURNING ${SUBSCRIPTION_COLUMNS}`),
      expireSubscription: db.prepare(`
        UPDATE subscriptions SET expired = 1, date_ended = ?, version = version + 1, updated_at = unixepoch()
        WHERE user_id = ? AND id = ? AND expired = 0`),
      deleteSubscription: db.prepare('DELETE FROM subscriptions WHERE user_id = ? AND id = ?'),
      lapsed: db.prepare(`
        SELECT id, user_id FROM subscriptions WHERE expired = 0 AND date_ended <= ? ORDER BY date_ended LIMIT ?`),
      lapse: db.prepare(
        'UPDATE subscriptions SET expired = 1, version = version + 1, updated_at = unixepoch() WHERE id = ? AND expired = 0',
      ),
      ping: db.prepare('SELECT count(*) FROM schema_migrations'),
      forgetIdempotency: db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?'),
      getIdempotency: db.prepare('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?'),
      insertIdempotency: db.prepare(
        'INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES (?, ?, ?, ?)',
      ),
      takeOverIdempotency: db.prepare('UPDATE idempotency_keys SET created_at = ? WHERE scope = ? AND key = ?'),
      keepIdempotency: db.prepare(
        'UPDATE idempotency_keys SET status = ?, headers = ?, body = ? WHERE scope = ? AND key = ?',
      ),
      releaseIdempotency: db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?'),
      insertAudit: db.prepare(`
        INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes)
        VALUES (?, ?, ?, ?, ?, ?)`),
      insertApiKey: db.prepare(`
        INSERT INTO api_keys (name, scopes, rate_limit, secret_hash) VALUES (?, ?, ?, ?)
        RETURNING ${API_KEY_COLUMNS}`),
      countApiKeys: db.prepare('SELECT count(*) AS n FROM api_keys'),
      getApiKey: db.prepare(`SELECT ${API_KEY_COLUMNS}, secret_hash FROM api_keys WHERE id = ?`),
      listApiKeys: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys ORDER BY id`),
      revokeApiKey: db.prepare(
        'UPDATE api_keys SET revoked_at = ?, version = version + 1 WHERE id = ? AND revoked_at IS NULL',
      ),
      apiKeyVersion: db.prepare('SELECT version FROM api_keys WHERE id = ?').pluck(),
      insertWebhook: db.prepare(
        `INSERT INTO webhooks (url, events, secret_salt) VALUES (?, ?, ?) RETURNING ${WEBHOOK_COLUMNS}`,
      ),
      getWebhook: db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`),
      listWebhooks: db.prepare(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`),
      updateWebhook: db.prepare(`
        UPDATE webhooks SET url = @url, events = @events, version = version + 1, updated_at = unixepoch()
        WHERE id = @id RETURNING ${WEBHOOK_COLUMNS}`),
      webhookVersion: db.prepare('SELECT version FROM webhooks WHERE id = ?').pluck(),
      deleteWebhook: db.prepare('DELETE FROM webhooks WHERE id = ?'),
      listDeliveries: db.prepare(`
        SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
        WHERE webhook_id = @webhook_id AND id > @after AND (@state IS NULL OR state = @state)
        ORDER BY id LIMIT @limit`),
      dueDeliveries: db
        .prepare(
          `
        SELECT d.id FROM webhook_deliveries d
        WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.locked_until IS NULL OR d.locked_until <= @now)
          AND NOT EXISTS (
            SELECT 1 FROM webhook_deliveries e
            WHERE e.state = 'pending' AND e.webhook_id = d.webhook_id AND e.user_id = d.user_id
              AND e.event_id < d.event_id)
        ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
        )
        .pluck(),
      leaseDelivery: db.prepare(`
        UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = @until, last_attempt_at = @now,
          version = version + 1
        WHERE id = @id`),
      claimedDelivery: db.prepare(`
        SELECT ${CLAIMED_DELIVERY_COLUMNS} FROM webhook_deliveries d
        JOIN webhooks w ON w.id = d.webhook_id JOIN audit_log a ON a.id = d.event_id
        WHERE d.id = ?`),
      finishDelivery: db.prepare(`
        UPDATE webhook_deliveries SET state = @state, locked_until = NULL, next_attempt_at = @next_attempt_at,
          last_status = @status, last_error = @error,
          delivered_at = CASE WHEN @state = 'delivered' THEN @at ELSE delivered_at END, version = version + 1
        WHERE id = @id AND state = 'pending' AND version = @version
        RETURNING webhook_id, user_id, event_id`),
      holdBackQueue: db.prepare(`
        UPDATE webhook_deliveries SET next_attempt_at = @next_attempt_at
        WHERE webhook_id = @webhook_id AND user_id = @user_id AND state = 'pending' AND event_id > @event_id
          AND next_attempt_at < @next_attempt_at`),
      redeliver: db.prepare(`
        UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = @now, locked_until = NULL,
          delivered_at = NULL, version = version + 1
        WHERE webhook_id = @webhook_id AND id = @id AND state <> 'pending'`),
      getDelivery: db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? AND id = ?`),
    };
  }

  /**
   * Within a write's transaction: false when there is no such row; the 412 when there is one at
   * a version the precondition does not name. Without a precondition it reads nothing: the write
   * itself tells whether the row was there.
   */
  private meetsPrecondition(version: Database.Statement, params: unknown[], ifVersion: IfVersion): boolean {
    if (ifVersion === undefined) return true;
    const current = version.get(...params) as number | undefined;
    if (current === undefined) return false;
    requireVersion(current, ifVersion);
    return true;
  }

  /**
   * Deletes the row `keys` name with `remove`, if `version` finds it at a version the precondition
   * names, and records it: one transaction; false when there was no such row.
   */
  private deleteRow(
    version: Database.Statement,
    remove: Database.Statement,
    keys: unknown[],
    ifVersion: IfVersion,
    record: () => void,
  ): boolean {
    return this.db.transaction(() => {
      if (!this.meetsPrecondition(version, keys, ifVersion)) return false;
      if (remove.run(...keys).changes === 0) return false;
      record();
      return true;
    })();
  }

  /** Records a change; called inside the transaction that makes it. */
  private audit(
    audit: AuditContext,
    action: AuditAction,
    resourceType: string,
    resourceId: string,
    userId: string | null,
  ): void {
    this.statements.insertAudit.run(
      audit.actor,
      action,
      resourceType,
      resourceId,
      userId,
      JSON.stringify(audit.attributes),
    );
  }

  async createUser(user: NewUser, audit: AuditContext): Promise<StoredUser> {
    const id = this.db
      .transaction(() => {
        const userId = uniqueEmail(() => this.statements.insertUser.run(userRow(user)).lastInsertRowid);
        for (const newsletter of user.newsletters) this.statements.addNewsletter.run(userId, newsletter);
        this.audit(audit, 'create', 'users', String(userId), String(userId));
        return String(userId);
      })
      .immediate();
    return (await this.getUser(id)) as StoredUser;
  }

  async importUsers(batch: readonly ImportedUser[], audit: AuditContext | null): Promise<string[]> {
    return this.db
      .transaction(() =>
        batch.map(({ user, subscriptions }) => {
          const id = String(uniqueEmail(() => this.statements.insertUser.run(userRow(user)).lastInsertRowid));
          for (const newsletter of user.newsletters) this.statements.addNewsletter.run(id, newsletter);
          for (const values of subscriptions) this.statements.importSubscription.run(subscriptionParams(id, values));
          if (audit) this.audit(audit, 'create', 'users', id, id);
          return id;
        }),
      )
      .immediate();
  }

  async userIdsByEmail(emails: readonly string[]): Promise<Map<string, string>> {
    const lower = JSON.stringify(emails.map((e) => e.toLowerCase()));
    const rows = this.statements.idsByEmail.all(lower) as { id: number; email_lower: string }[];
    return new Map(rows.map((r) => [r.email_lower, String(r.id)]));
  }

  async getUser(id: string): Promise<StoredUser | undefined> {
    const values = this.statements.getUser.get(id) as unknown[] | undefined;
    return values && userOfValues(values);
  }

  async listUsers(query: UserListQuery): Promise<StoredUser[]> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (query.email && 'address' in query.email) {
      conditions.push('email_lower = ?');
      params.push(query.email.address.toLowerCase());
    } else if (query.email) {
      conditions.push('email_domain = ?');
      params.push(query.email.domain.toLowerCase());
    }
    if (query.circulationNumber !== undefined) {
      conditions.push('circulation_number = ?');
      params.push(query.circulationNumber);
    }
    if (query.afterId !== undefined) {
      conditions.push(query.descending ? 'id < ?' : 'id > ?');
      params.push(query.afterId);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const order = query.descending ? 'DESC' : 'ASC';
    // The page's ids first: OFFSET would otherwise compute each skipped row's newsletters.
    const sql = `
      WITH page AS (SELECT id FROM users ${where} ORDER BY id ${order} LIMIT ? OFFSET ?)
      ${USER_SELECT} WHERE id IN (SELECT id FROM page) ORDER BY id ${order}`;
    let statement = this.listStatements.get(sql);
    if (!statement) {
      // Rows as arrays: better-sqlite3 builds an object per row at several times the cost.
      statement = this.db.prepare(sql).raw();
      this.listStatements.set(sql, statement);
    }
    return (statement.all(...params, query.limit, query.offset) as unknown[][]).map(userOfValues);
  }

  async updateUser(id: string, changes: UserChanges, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    return this.db
      .transaction(() => {
        const current = this.statements.getUserRow.get(id) as Row | undefined;
        if (!current) return false;
        requireVersion(current.version as number, ifVersion);
        const { version: _version, ...stored } = current;
        const row: Row = { ...stored, id };
        if (changes.email !== undefined) {
          const keys = emailKeys(changes.email);
          Object.assign(row, { email: changes.email, email_lower: keys.lower, email_domain: keys.domain });
        }
        if (changes.passwordHash !== undefined) row.password_hash = changes.passwordHash;
        for (const [field, value] of Object.entries(changes.fields)) row[columnOf(field)] = toColumnValue(field, value);
        uniqueEmail(() => this.statements.updateUser.run(row));
        for (const newsletter of changes.removeNewsletters) this.statements.removeNewsletter.run(id, newsletter);
        for (const newsletter of changes.addNewsletters) this.statements.addNewsletter.run(id, newsletter);
        this.audit(audit, 'update', 'users', id, id);
        return true;
      })
      .immediate();
  }

  async deleteUser(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    const { userVersion, deleteUser } = this.statements;
    return this.deleteRow(userVersion, deleteUser, [id], ifVersion, () => this.audit(audit, 'delete', 'users', id, id));
  }

  async createSubscription(
    userId: string,
    values: SubscriptionValues,
    audit: AuditContext,
  ): Promise<StoredSubscription | undefined> {
    return this.db.transaction(() => {
      const row = this.statements.insertSubscription.get(subscriptionParams(userId, values)) as Row | undefined;
      if (!row) return undefined;
      const created = toStoredSubscription(row);
      this.audit(audit, 'create', 'subscriptions', created.id, userId);
      return created;
    })();
  }

  async listSubscriptions(userId: string): Promise<StoredSubscription[] | undefined> {
    const rows = this.statements.listSubscriptions.all(userId) as Row[];
    if (rows.length === 0) return undefined;
    return rows.filter((r) => r.id !== null).map(toStoredSubscription);
  }

  async listSubscriptionsOfUsers(userIds: readonly string[]): Promise<StoredSubscription[]> {
    return (this.statements.subscriptionsOfUsers.all(JSON.stringify(userIds)) as Row[]).map(toStoredSubscription);
  }

  async getSubscription(userId: string, id: string): Promise<StoredSubscription | undefined> {
    const row = this.statements.getSubscription.get(userId, id) as Row | undefined;
    return row && toStoredSubscription(row);
  }

  async updateSubscription(
    userId: string,
    id: string,
    change: (current: SubscriptionValues) => SubscriptionValues,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    return this.db
      .transaction(() => {
        const row = this.statements.getSubscription.get(userId, id) as Row | undefined;
        if (!row) return undefined;
        const current = toStoredSubscription(row);
        requireVersion(current.version, ifVersion);
        const next = change(current);
        const updated = this.statements.updateSubscription.get({ ...subscriptionParams(userId, next), id }) as Row;
        this.audit(audit, 'update', 'subscriptions', id, userId);
        return toStoredSubscription(updated);
      })
      .immediate();
  }

  async expireSubscription(
    userId: string,
    id: string,
    now: number,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredSubscription | undefined> {
    return this.db.transaction(() => {
      if (!this.meetsPrecondition(this.statements.subscriptionVersion, [userId, id], ifVersion)) return undefined;
      if (this.statements.expireSubscription.run(now, userId, id).changes > 0) {
        this.audit(audit, 'expire', 'subscriptions', id, userId);
      }
      const row = this.statements.getSubscription.get(userId, id) as Row | undefined;
      return row && toStoredSubscription(row);
    })();
  }

  async deleteSubscription(userId: string, id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    const { subscriptionVersion, deleteSubscription } = this.statements;
    return this.deleteRow(subscriptionVersion, deleteSubscription, [userId, id], ifVersion, () =>
      this.audit(audit, 'delete', 'subscriptions', id, userId),
    );
  }

  async lapseSubscriptions(now: number, audit: AuditContext, limit: number): Promise<number> {
    return this.db
      .transaction(() => {
        const due = this.statements.lapsed.all(now, limit) as { id: number; user_id: number }[];
        for (const { id, user_id } of due) {
          this.statements.lapse.run(id);
          this.audit(audit, 'expire', 'subscriptions', String(id), String(user_id));
        }
        return due.length;
      })
      .immediate();
  }

  async createApiKey(key: NewApiKey, audit: AuditContext): Promise<ApiKey> {
    return this.db.transaction(() => {
      const created = this.insertApiKey(key);
      this.audit(audit, 'create', 'api-keys', created.id, null);
      return created;
    })();
  }

  async createFirstApiKey(key: NewApiKey): Promise<ApiKey | undefined> {
    return this.db
      .transaction(() => {
        const { n } = this.statements.countApiKeys.get() as { n: number };
        return n === 0 ? this.insertApiKey(key) : undefined;
      })
      .immediate();
  }

  private insertApiKey(key: NewApiKey): ApiKey {
    const row = this.statements.insertApiKey.get(
      key.name,
      JSON.stringify(key.scopes),
      key.rateLimit,
      key.secretHash,
    ) as Row;
    return toApiKey(row);
  }

  async getApiKey(id: string): Promise<StoredApiKey | undefined> {
    const row = this.statements.getApiKey.get(id) as Row | undefined;
    return row && { ...toApiKey(row), secretHash: row.secret_hash as Buffer };
  }

  async listApiKeys(): Promise<ApiKey[]> {
    return (this.statements.listApiKeys.all() as Row[]).map(toApiKey);
  }

  async revokeApiKey(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion): Promise<ApiKey | undefined> {
    return this.db.transaction(() => {
      if (!this.meetsPrecondition(this.statements.apiKeyVersion, [id], ifVersion)) return undefined;
      if (this.statements.revokeApiKey.run(now, id).changes > 0) this.audit(audit, 'revoke', 'api-keys', id, null);
      const row = this.statements.getApiKey.get(id) as Row | undefined;
      return row && toApiKey(row);
    })();
  }

  async listAuditEvents(query: AuditQuery): Promise<AuditEvent[]> {
    const conditions = ['id > ?'];
    const params: unknown[] = [query.afterId ?? 0];
    for (const [column, value] of [
      ['actor', query.actor],
      ['resource_type', query.resourceType],
      ['resource_id', query.resourceId],
      ['user_id', query.userId],
    ] as const) {
      if (value === undefined) continue;
      conditions.push(`${column} = ?`);
      params.push(value);
    }
    if (query.kinds) {
      conditions.push(`(${query.kinds.map(() => '(resource_type = ? AND action = ?)').join(' OR ') || 'FALSE'})`);
      for (const kind of query.kinds) params.push(kind.resourceType, kind.action);
    }
    const rows = this.db
      .prepare(`SELECT ${AUDIT_COLUMNS} FROM audit_log WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT ?`)
      .all(...params, query.limit) as Row[];
    return rows.map(toAuditEvent);
  }

  async claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState> {
    return this.db
      .transaction((): IdempotencyState => {
        this.statements.forgetIdempotency.run(now - limits.keepFor);
        const row = this.statements.getIdempotency.get(scope, key) as Row | undefined;
        if (!row) {
          this.statements.insertIdempotency.run(scope, key, fingerprint, now);
          return { state: 'new' };
        }
        return idempotencyState(row, fingerprint, now, limits.staleAfter, () =>
          this.statements.takeOverIdempotency.run(now, scope, key),
        );
      })
      .immediate();
  }

  async finishIdempotencyKey(scope: string, key: string, response: KeptResponse | null): Promise<void> {
    if (response) {
      this.statements.keepIdempotency.run(response.status, JSON.stringify(response.headers), response.body, scope, key);
    } else {
      this.statements.releaseIdempotency.run(scope, key);
    }
  }

  async createWebhook(webhook: NewWebhook, audit: AuditContext): Promise<Webhook> {
    return this.db.transaction(() => {
      const row = this.statements.insertWebhook.get(
        webhook.url,
        JSON.stringify(webhook.events),
        webhook.secretSalt,
      ) as Row;
      const created = toWebhook(row);
      this.audit(audit, 'create', 'webhooks', created.id, null);
      return created;
    })();
  }

  async getWebhook(id: string): Promise<Webhook | undefined> {
    const row = this.statements.getWebhook.get(id) as Row | undefined;
    return row && toWebhook(row);
  }

  async listWebhooks(): Promise<Webhook[]> {
    return (this.statements.listWebhooks.all() as Row[]).map(toWebhook);
  }

  async updateWebhook(
    id: string,
    changes: WebhookChanges,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<Webhook | undefined> {
    return this.db
      .transaction(() => {
        const current = this.statements.getWebhook.get(id) as Row | undefined;
        if (!current) return undefined;
        const webhook = toWebhook(current);
        requireVersion(webhook.version, ifVersion);
        const row = this.statements.updateWebhook.get({
          id,
          url: changes.url ?? webhook.url,
          events: JSON.stringify(changes.events ?? webhook.events),
        }) as Row;
        this.audit(audit, 'update', 'webhooks', id, null);
        return toWebhook(row);
      })
      .immediate();
  }

  async deleteWebhook(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    const { webhookVersion, deleteWebhook } = this.statements;
    return this.deleteRow(webhookVersion, deleteWebhook, [id], ifVersion, () =>
      this.audit(audit, 'delete', 'webhooks', id, null),
    );
  }

  async listWebhookDeliveries(webhookId: string, query: DeliveryQuery): Promise<WebhookDelivery[] | undefined> {
    return this.db.transaction(() => {
      if (!this.statements.getWebhook.get(webhookId)) return undefined;
      const rows = this.statements.listDeliveries.all({
        webhook_id: webhookId,
        after: query.afterId ?? 0,
        state: query.state ?? null,
        limit: query.limit,
      }) as Row[];
      return rows.map(toWebhookDelivery);
    })();
  }

  async claimWebhookDeliveries(now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    // A look without the write lock first: most polls find nothing due.
    if (this.statements.dueDeliveries.all({ now, limit: 1 }).length === 0) return [];
    return this.db
      .transaction(() => {
        const ids = this.statements.dueDeliveries.all({ now, limit }) as number[];
        return ids.map((id) => {
          this.statements.leaseDelivery.run({ id, now, until: now + leaseMs });
          return toClaimedDelivery(this.statements.claimedDelivery.get(id) as Row);
        });
      })
      .immediate();
  }

  async finishWebhookDelivery(id: string, claimedVersion: number, outcome: DeliveryOutcome): Promise<boolean> {
    return this.db.transaction(() => {
      const queue = this.statements.finishDelivery.get({
        id,
        version: claimedVersion,
        state: outcome.state,
        at: outcome.at,
        next_attempt_at: outcome.nextAttemptAt,
        status: outcome.status,
        error: outcome.error,
      }) as Row | undefined;
      if (!queue) return false;
      if (outcome.nextAttemptAt !== null) {
        this.statements.holdBackQueue.run({ ...queue, next_attempt_at: outcome.nextAttemptAt });
      }
      return true;
    })();
  }

  async getWebhookDelivery(webhookId: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = this.statements.getDelivery.get(webhookId, id) as Row | undefined;
    return row && toWebhookDelivery(row);
  }

  async redeliverWebhookDelivery(webhookId: string, id: string, now: number): Promise<WebhookDelivery | undefined> {
    this.statements.redeliver.run({ webhook_id: webhookId, id, now });
    return this.getWebhookDelivery(webhookId, id);
  }

  async ping(): Promise<void> {
    this.statements.ping.get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** Refuses a write whose precondition names other versions than the one stored. */
function requireVersion(current: number, ifVersion: IfVersion): void {
  if (ifVersion !== undefined && !ifVersion.includes(current)) throw errors.preconditionFailed();
}

/** Runs a write that may break the unique email index, turning that into the 422 it is. */
function uniqueEmail<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' && e.message?.includes('email_lower')) throw errors.emailTaken();
    throw error;
  }
}

/** A user read with `USER_SELECT` as an array: id, email, the profile columns, newsletters. */
function userOfValues(values: readonly unknown[]): StoredUser {
  return {
    id: String(values[0]),
    email: values[1] as string,
    fields: fieldsOfValues(values, 2),
    newsletters: JSON.parse(values[2 + USER_COLUMNS.length] as string) as string[],
    version: values[3 + USER_COLUMNS.length] as number,
  };
}

function userRow(user: NewUser): Row {
  const keys = emailKeys(user.email);
  const row: Row = {
    email: user.email,
    email_lower: keys.lower,
    email_domain: keys.domain,
    password_hash: user.passwordHash,
  };
  for (const field of USER_FIELDS) row[columnOf(field)] = toColumnValue(field, user.fields[field]);
  return row;
}

function subscriptionParams(userId: string, v: SubscriptionValues): Row {
  return {
    user_id: userId,
    date_started: v.dateStarted,
    date_ended: v.dateEnded,
    external_identifier: v.externalIdentifier,
    license: v.license,
    resource: v.resource,
    trial: v.trial ? 1 : 0,
    product_id: v.productId,
  };
}
