/**
 * A database that cannot answer (PostgreSQL stopped or unreachable, a SQLite file locked by
 * another process, a full disk) is an outage, not a bug: the store throws `StoreUnavailable`,
 * which the client sees as a 503 it may retry, and the process stays up to recover when the
 * database does.
 */
import type { Store } from './port.js';
import { wrapMethods } from './wrap-methods.js';

export class StoreUnavailable extends Error {
  constructor(cause: unknown) {
    super('the database is not answering', { cause });
    this.name = 'StoreUnavailable';
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
/** PostgreSQL SQLSTATEs: connection exceptions (08…), shutdowns (57P0…), too many connections, disk full. */
const POSTGRES_STATES = /^(08...|57P0[1-3]|53300|53100|57014)$/;
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN)/;
const PG_MESSAGES = /timeout exceeded when trying to connect|Connection terminated|connection error|not queryable/;

export function isUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  return (
    NETWORK_CODES.has(code) ||
    POSTGRES_STATES.test(code) ||
    SQLITE_CODES.test(code) ||
    (typeof e?.message === 'string' && PG_MESSAGES.test(e.message))
  );
}

/**
 * The store with every outage error turned into `StoreUnavailable`; everything else passes as it
 * is. With `settled`, a call answers only once what it answers awaits (SQLite's group commit: the
 * commit of the writes of the call's turn), and fails as that does.
 */
export function withOutagesAsUnavailable(store: Store, settled?: () => Promise<void> | undefined): Store {
  return wrapMethods(store, (method, target) => async (...args: unknown[]) => {
    try {
      const answer = await method.apply(target, args);
      const commit = settled?.();
      if (commit !== undefined) await commit;
      return answer;
    } catch (error) {
      if (isUnavailable(error)) throw new StoreUnavailable(error);
      throw error;
    }
  });
}
