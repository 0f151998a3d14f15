/**
 * Credentials on PostgreSQL. Every request reads its credential, so the credentials read for
 * authentication are kept in memory (their secret's hash, never the secret) as notified-cache.ts keeps
 * records, for at most CREDENTIAL_MAX_AGE_MS: every change to `api_keys` notifies
 * CREDENTIALS_CHANNEL. While not listening, every authentication reads the store.
 */
import type { ApiKey, StoredApiKey } from '../../domain/api-key.js';
import type { AuditContext } from '../../domain/audit.js';
import { failures } from '../../domain/failures.js';
import type { CredentialStore, IfVersion, NewApiKey } from '../port.js';
import { API_KEY_COLUMNS, toApiKey, toStoredApiKey } from '../sql/credentials.js';
import type { Row } from '../sql/rows.js';
import type { ChangeListener } from './change-listener.js';
import { auditInsert, MIGRATION_LOCK, versionCondition, type PostgresDatabase } from './database.js';
import { NotifiedCache } from './notified-cache.js';

/** The channel every change to `api_keys` notifies. */
export const CREDENTIALS_CHANNEL = 'circulation_credentials';

/** How long a credential read for authentication is trusted at most, however quiet the notifications. */
export const CREDENTIAL_MAX_AGE_MS = 5_000;

/** The credentials, keeping what they read for authentication while `changes` tells of every change. */
export function postgresCredentials(database: PostgresDatabase, changes: ChangeListener): CredentialStore {
  const kept = new NotifiedCache<StoredApiKey>(database, changes, CREDENTIALS_CHANNEL, CREDENTIAL_MAX_AGE_MS);
  const { changing } = kept;

  async function createApiKey(key: NewApiKey, audit: AuditContext): Promise<ApiKey> {
    const params: unknown[] = [key.name, key.scopes, key.rateLimit, key.secretHash];
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: 'api-keys',
      userIdColumn: 'NULL',
      from: 'k',
    });
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
    return kept.read(id, () => getApiKey(id));
  }

  async function listApiKeys(): Promise<ApiKey[]> {
    return (await database.rows(`SELECT ${API_KEY_COLUMNS} FROM api_keys ORDER BY id`)).map(toApiKey);
  }

  async function revokeApiKey(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion) {
    const params: unknown[] = [id, new Date(now * 1000)];
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, {
      action: 'revoke',
      resourceType: 'api-keys',
      userIdColumn: 'NULL',
      from: 'r',
    });
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
    create: createApiKey,
    createFirst: createFirstApiKey,
    get: getApiKey,
    getForAuthentication: getApiKeyForAuthentication,
    list: listApiKeys,
    revoke: revokeApiKey,
  };
}
