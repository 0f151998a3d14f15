/**
 * Opens the store a configuration names, with its schema migrated to this release.
 */
import type { Store, StoreOptions } from './port.js';
import { openPostgresStore } from './postgres/open.js';

import { NoDatabase } from './no-database.js';

export { NoDatabase } from './no-database.js';
export { DEFAULT_POOL_SIZE } from './postgres/open.js';
export { PAGE_READ_LIMIT } from './sql/users.js';
import { openSqliteStore, type SqliteSynchronous } from './sqlite/open.js';

// A SQLite database as a whole file, for backups and restores (see sqlite/files.ts).
export {
  checkSqliteCopy,
  copySqliteFile,
  DatabaseInUse,
  takeSqliteFileAlone,
  UnsoundCopy,
  type HeldAlone,
} from './sqlite/files.js';

/** Which database, and how to use it: what the settings say (see config.ts). */
export type DatabaseConfig =
  | { kind: 'sqlite'; path: string; synchronous: SqliteSynchronous; busyTimeoutMs: number }
  | { kind: 'postgres'; url: string; poolSize: number; statementTimeoutMs: number; connectTimeoutMs: number };

export async function openStore(database: DatabaseConfig, options: StoreOptions = {}): Promise<Store> {
  try {
    if (database.kind === 'postgres') {
      return await openPostgresStore({
        ...options,
        url: database.url,
        poolSize: database.poolSize,
        statementTimeoutMs: database.statementTimeoutMs,
        connectTimeoutMs: database.connectTimeoutMs,
      });
    }
    return openSqliteStore({
      ...options,
      path: database.path,
      synchronous: database.synchronous,
      busyTimeoutMs: database.busyTimeoutMs,
    });
  } catch (error) {
    if (error instanceof NoDatabase) throw error;
    // The URL is left out on purpose: it may carry a password.
    throw new Error(`cannot open the ${database.kind} database: ${(error as Error).message}`, { cause: error });
  }
}
