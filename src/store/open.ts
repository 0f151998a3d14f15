/**
 * Opens the store a configuration names.
 */
import type { Config } from '../config.js';
import type { Store } from './port.js';
import { openSqliteStore } from './sqlite.js';

export function openStore(database: Config['database']): Store {
  return openSqliteStore({ path: database.path, synchronous: database.synchronous });
}
