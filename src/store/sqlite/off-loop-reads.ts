/**
 * Reads run on a worker thread with its own read-only connection to the database file, for the
 * counts that read an index range as long as the table (a product's active subscriptions, a
 * newsletter's members, the dashboard's report): better-sqlite3 is synchronous, so on the
 * request's own connection such a count held every other request for its whole length, which
 * grows with the table. The worker reads the last
 * committed state, as the main connection does between its transactions (WAL); the statements of
 * one call share one read transaction, so their counts are of one moment.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Sql } from '../sql/builder.js';
import type { Row } from '../sql/rows.js';

export interface OffLoopReads {
  /** Each statement's rows, read in one transaction. */
  read(queries: readonly Sql[]): Promise<Row[][]>;
  close(): Promise<void>;
}

/**
 * The worker's code. Plain JavaScript evaluated as the worker's source, so that it runs alike
 * from the sources (tsx) and from `dist/`; it prepares each statement once, as the main
 * connection does.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const prepared = new Map();
const prepare = (text) => {
  let statement = prepared.get(text);
  if (!statement) prepared.set(text, (statement = db.prepare(text)));
  return statement;
};
const readAll = db.transaction((queries) => queries.map(({ text, values }) => prepare(text).all(...values)));
parentPort.on('message', ({ id, queries }) => {
  try {
    parentPort.postMessage({ id, rows: readAll(queries) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;

interface Pending {
  resolve(rows: Row[][]): void;
  reject(error: unknown): void;
}

/** A worker for `path`, started on the first read and started again after it has failed. */
export function offLoopReads(path: string, busyTimeoutMs: number): OffLoopReads {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const pending = new Map<number, Pending>();
  let worker: Worker | undefined;
  let nextId = 0;

  function failAll(error: unknown): void {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  }

  function started(): Worker {
    if (worker) return worker;
    const fresh = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, busyTimeoutMs } });
    fresh.on(
      'message',
      ({ id, rows, error }: { id: number; rows?: Row[][]; error?: { message: string; code?: string } }) => {
        const request = pending.get(id);
        if (!request) return;
        pending.delete(id);
        if (error) request.reject(Object.assign(new Error(error.message), { code: error.code }));
        else request.resolve(rows ?? []);
        // An idle worker does not keep the process alive; one with reads to answer does.
        if (pending.size === 0) fresh.unref();
      },
    );
    fresh.on('error', (error) => {
      if (worker === fresh) worker = undefined;
      failAll(error);
    });
    fresh.on('exit', () => {
      if (worker === fresh) worker = undefined;
      failAll(new Error('the read worker stopped'));
    });
    fresh.unref();
    worker = fresh;
    return fresh;
  }

  return {
    read(queries) {
      const statements = queries.map((query) => query.render('sqlite'));
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        const target = started();
        target.ref();
        target.postMessage({ id, queries: statements });
      });
    },
    async close() {
      const stopping = worker;
      worker = undefined;
      if (stopping) await stopping.terminate();
    },
  };
}

/** The same reads on the request's own connection: for a database in memory, which no worker can open. */
export function onLoopReads(all: (query: Sql) => Row[], transaction: <T>(run: () => T) => T): OffLoopReads {
  return {
    async read(queries) {
      return transaction(() => queries.map(all));
    },
    async close() {},
  };
}
