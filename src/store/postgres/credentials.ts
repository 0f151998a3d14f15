/**
 * Credentials on PostgreSQL. Every request reads its credential, so the credentials read for
 * authentication are kept in memory (their secret's hash, never the secret), and trusted only while
 * this process hears of every change to them (credential-changes.ts) and for at most
 * CREDENTIAL_MAX_AGE_MS after they were read: a change empties what is kept, in this process at
 * once and in every other when its notification arrives, and the age bounds what a notification
 * lost on a connection that looks alive could cost. While not listening, every authentication
 * reads the store.
 */
import type pg from 'pg';
import type { ApiKey, StoredApiKey } from '../../domain/api-key.js';
import type { AuditContext } from '../../domain/audit.js';
import { failures } from '../../domain/failures.js';
import type { CredentialStore, IfVersion, NewApiKey } from '../port.js';
import { API_KEY_COLUMNS, toApiKey, toStoredApiKey } from '../sql/credentials.js';
import type { Row } from '../sql/rows.js';
import { CREDENTIALS_CHANNEL, type CredentialChanges } from './credential-changes.js';
import { auditInsert, MIGRATION_LOCK, versionCondition, type PostgresDatabase } from './database.js';

/** How long a credential read for authentication is trusted at most, however quiet the notifications. */
export const CREDENTIAL_MAX_AGE_MS = 5_000;

/** What is kept of a credential: it, and when the read that found it started. */
interface Kept {
  key: StoredApiKey;
  readAt: number;
}

/**
 * The credentials, and the listener `listen` starts (to close with the store), which calls back on
 * every notification and whenever it starts or stops listening.
 */
export function postgresCredentials(
  database: PostgresDatabase,
  listen: (changed: () => void) => CredentialChanges,
): { credentials: CredentialStore; changes: CredentialChanges } {
  const kept = new Map<string, Kept>();
  /** Moves with every forgetting, so that a read under way meanwhile keeps nothing. */
  let generation = 0;

  function forget(): void {
    generation += 1;
    kept.clear();
  }

  const changes = listen(forget);

  /** Runs a change to `api_keys` in a transaction that notifies every process, then forgets here. */
  async function changing<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = await database.transaction(async (client) => {
      const done = await work(client);
      await client.query(`NOTIFY ${CREDENTIALS_CHANNEL}`);
      return done;
    });
    forget();
    return result;
  }

  async function createApiKey(key: NewApiKey, audit: AuditContext): Promise<ApiKey> {
    const params: unknown[] = [key.name, key.scopes, key.rateLimit, key.secretHash];
    const record = auditInsert(params, audit, 'create', 'api-keys', 'id', 'NULL', 'k');
    const { rows } = await changing((client) =>
      client.query(
        `WITH k AS (
           INSERT INTO api_keys (name, scopes, rate_limit, secret_hash) VALUES ($1, $2, $3, $4)
           RETURNING ${API_KEY_COLUMNS}
         ), a AS (${record})
         SELECT * FROM k`,
        params,
      ),
    );
    return toApiKey(rows[0] as Row);
  }

  async function createFirstApiKey(key: NewApiKey): Promise<ApiKey | undefined> {
    return changing(async (client) => {
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

  async function getApiKey(id: string): Promise<StoredApiKey | undefined> {
    const [row] = await database.preparedRows(
      'api-key',
      `SELECT ${API_KEY_COLUMNS}, secret_hash FROM api_keys WHERE id = $1`,
      [id],
    );
    return row && toStoredApiKey(row);
  }

  async function getApiKeyForAuthentication(id: string): Promise<StoredApiKey | undefined> {
    changes.start();
    if (!changes.listening) return getApiKey(id);
    const readAt = performance.now();
    const found = kept.get(id);
    if (found && readAt - found.readAt < CREDENTIAL_MAX_AGE_MS) return found.key;
    const seen = generation;
    const key = await getApiKey(id);
    if (key && generation === seen && changes.listening) kept.set(id, { key, readAt });
    return key;
  }

  async function listApiKeys(): Promise<ApiKey[]> {
    return (await database.rows(`SELECT ${API_KEY_COLUMNS} FROM api_keys ORDER BY id`)).map(toApiKey);
  }

  async function revokeApiKey(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion) {
    const params: unknown[] = [id, new Date(now * 1000)];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, 'revoke', 'api-keys', 'id', 'NULL', 'r');
    const {
      rows: [revoked],
    } = await changing((client) =>
      client.query(
        `WITH r AS (
           UPDATE api_keys SET revoked_at = $2, version = version + 1
           WHERE id = $1 AND revoked_at IS NULL ${condition} RETURNING id
         ), a AS (${record})
         SELECT count(*)::int AS n FROM r`,
        params,
      ),
    );
    const [row] = await database.rows(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    if (!row) return undefined;
    const key = toApiKey(row);
    // Nothing revoked: already revoked, or (with a precondition) at a version it does not name.
    if (revoked?.n === 0 && ifVersion !== undefined && !ifVersion.includes(key.version)) {
      throw failures.preconditionFailed();
    }
    return key;
  }

  return {
    credentials: {
      createApiKey,
      createFirstApiKey,
      getApiKey,
      getApiKeyForAuthentication,
      listApiKeys,
      revokeApiKey,
    },
    changes,
  };
}
