/**
 * Credentials on SQLite.
 */
import type { ApiKey, StoredApiKey } from '../../domain/api-key.js';
import type { AuditContext } from '../../domain/audit.js';
import type { CredentialStore, IfVersion, NewApiKey } from '../port.js';
import { API_KEY_COLUMNS, toApiKey, toStoredApiKey } from '../sql/credentials.js';
import type { Row } from '../sql/rows.js';
import type { SqliteDatabase } from './database.js';

export function sqliteCredentials(database: SqliteDatabase): CredentialStore {
  const { db } = database;

  /**
   * Every request reads its credential, so the credentials read are kept (their secret's hash,
   * never the secret), and trusted only while nothing has changed the database since: SQLite's
   * data version (database.dataVersion) moves whenever another connection (another process, the
   * command line) commits, and this connection's own credential changes empty the cache. A
   * revocation through this process holds from the next request on; through another, within
   * DATA_VERSION_MAX_AGE_MS.
   */
  const cache = new Map<string, StoredApiKey>();
  let cachedAt: unknown;

  const insert = db.prepare(`
    INSERT INTO api_keys (name, scopes, rate_limit, secret_hash) VALUES (?, ?, ?, ?)
    RETURNING ${API_KEY_COLUMNS}`);

  function insertKey(key: NewApiKey): ApiKey {
    return toApiKey(insert.get(key.name, JSON.stringify(key.scopes), key.rateLimit, key.secretHash) as Row);
  }

  async function createApiKey(key: NewApiKey, audit: AuditContext): Promise<ApiKey> {
    cache.clear();
    return db.transaction(() => {
      const created = insertKey(key);
      database.record(audit, { action: 'create', resourceType: 'api-keys', resourceId: created.id, userId: null });
      return created;
    })();
  }

  const count = db.prepare('SELECT count(*) AS n FROM api_keys');

  async function createFirstApiKey(key: NewApiKey): Promise<ApiKey | undefined> {
    cache.clear();
    return db.transaction(() => ((count.get() as { n: number }).n === 0 ? insertKey(key) : undefined)).immediate();
  }

  const selectOne = db.prepare(`SELECT ${API_KEY_COLUMNS}, secret_hash FROM api_keys WHERE id = ?`);

  async function getApiKey(id: string): Promise<StoredApiKey | undefined> {
    const version = database.dataVersion();
    if (version !== cachedAt) {
      cache.clear();
      cachedAt = version;
    }
    const cached = cache.get(id);
    if (cached) return cached;
    const row = selectOne.get(id) as Row | undefined;
    const key = row && toStoredApiKey(row);
    if (key) cache.set(id, key);
    return key;
  }

  const selectAll = db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys ORDER BY id`);

  async function listApiKeys(): Promise<ApiKey[]> {
    return (selectAll.all() as Row[]).map(toApiKey);
  }

  const version = db.prepare('SELECT version FROM api_keys WHERE id = ?').pluck();
  const revoke = db.prepare(
    'UPDATE api_keys SET revoked_at = ?, version = version + 1 WHERE id = ? AND revoked_at IS NULL',
  );

  async function revokeApiKey(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion) {
    cache.clear();
    return db.transaction(() => {
      if (!database.meetsPrecondition(version, [id], ifVersion)) return undefined;
      if (revoke.run(now, id).changes > 0)
        database.record(audit, { action: 'revoke', resourceType: 'api-keys', resourceId: id, userId: null });
      const row = selectOne.get(id) as Row | undefined;
      return row && toApiKey(row);
    })();
  }

  // What is kept is never behind the database, so authentication reads it as everything else does.
  return {
    create: createApiKey,
    createFirst: createFirstApiKey,
    get: getApiKey,
    getForAuthentication: getApiKey,
    list: listApiKeys,
    revoke: revokeApiKey,
  };
}
