/**
 * The port for API credentials. Only a hash of each secret is stored.
 */
import type { ApiKey, Scope, StoredApiKey } from '../../domain/api-key.js';
import type { AuditContext } from '../../domain/audit.js';
import type { IfVersion } from './versions.js';

export interface NewApiKey {
  name: string;
  scopes: readonly Scope[];
  rateLimit: number | null;
  secretHash: Buffer;
}

export interface CredentialStore {
  create(key: NewApiKey, audit: AuditContext): Promise<ApiKey>;
  /** Creates the key only when there is no credential at all, atomically across processes. */
  createFirst(key: NewApiKey): Promise<ApiKey | undefined>;
  /** The credential with its secret hash, revoked or not, as stored now. */
  get(id: string): Promise<StoredApiKey | undefined>;
  /**
   * The same, as authentication reads it on every request: possibly kept in memory, a change made
   * anywhere holding within the store's stated bound (SQLite: from the next request on; PostgreSQL:
   * see store/postgres/credentials.ts).
   */
  getForAuthentication(id: string): Promise<StoredApiKey | undefined>;
  list(): Promise<ApiKey[]>;
  /** Revokes it from `now` on; a key already revoked keeps its first revocation time. */
  revoke(id: string, now: number, audit: AuditContext, ifVersion?: IfVersion): Promise<ApiKey | undefined>;
}
