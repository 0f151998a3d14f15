/**
 * Credentials as every adapter keeps them: their columns and how a row reads back.
 */
import type { ApiKey, Scope, StoredApiKey } from '../../domain/api-key.js';
import { array, seconds, type Row } from './rows.js';

export const API_KEY_COLUMNS = 'id, name, scopes, rate_limit, created_at, revoked_at, version';

export function toApiKey(row: Row): ApiKey {
  return {
    id: String(row.id),
    name: row.name as string,
    scopes: array(row.scopes) as Scope[],
    rateLimit: row.rate_limit as number | null,
    createdAt: seconds(row.created_at),
    revokedAt: row.revoked_at === null ? null : seconds(row.revoked_at),
    version: Number(row.version),
  };
}

/** A row read with `API_KEY_COLUMNS` and `secret_hash`. */
export function toStoredApiKey(row: Row): StoredApiKey {
  return { ...toApiKey(row), secretHash: row.secret_hash as Buffer };
}
