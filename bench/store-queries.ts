/**
 * Store query latency at size: seeds N users (default 100,000) into a fresh SQLite file and a
 * fresh PostgreSQL schema, then times the list and filter queries through the store port.
 *
 *   npm run bench:store -- --users 100000
 *
 * Prints p50 and p99 per query and store. This measures the store alone; the HTTP benchmark
 * against the runtime's baseline is a separate matter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Store, UserListQuery } from '../src/store/port.js';
import { openPostgresStore } from '../src/store/postgres/open.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '300' },
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
  },
});
const USERS = Number(values.users);
const RUNS = Number(values.runs);
const DOMAINS = Math.max(1, Math.floor(USERS / 50));

/** Users `u<i>@d<i % DOMAINS>.example` with circulation number `C-<i>`: 50 users a domain. */
const SEED_SQL = (series: string) => `
  INSERT INTO users (email, email_lower, email_domain, family_name, circulation_number)
  SELECT 'u' || i || '@d' || (i % ${DOMAINS}) || '.example', 'u' || i || '@d' || (i % ${DOMAINS}) || '.example',
         'd' || (i % ${DOMAINS}) || '.example', 'Reader', 'C-' || i
  FROM ${series}`;

const deepOffset = Math.max(0, USERS - 10_000);
const queries: [string, UserListQuery][] = [
  ['list page 1', { offset: 0, limit: 101 }],
  [`list at offset ${deepOffset}`, { offset: deepOffset, limit: 101 }],
  ['filter by domain (50 matches)', { email: { domain: 'd7.example' }, offset: 0, limit: 101 }],
  ['filter by exact email', { email: { address: 'u7@d7.example' }, offset: 0, limit: 101 }],
  ['filter by circulationNumber', { circulationNumber: 'C-77', offset: 0, limit: 101 }],
];

async function time(store: Store, query: UserListQuery): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i += 1) await store.users.list(query);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    await store.users.list(query);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((x, y) => x - y);
  return { p50: samples[Math.floor(RUNS / 2)] as number, p99: samples[Math.floor(RUNS * 0.99)] as number };
}

async function measure(name: string, store: Store): Promise<void> {
  for (const [label, query] of queries) {
    const { p50, p99 } = await time(store, query);
    console.log(`${name.padEnd(10)} ${label.padEnd(32)} p50 ${p50.toFixed(3)} ms   p99 ${p99.toFixed(3)} ms`);
  }
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'circulation-bench-'));
  const path = join(dir, 'bench.db');
  try {
    await openSqliteStore({ path }).close();
    const db = new Database(path);
    db.exec(
      SEED_SQL(`(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${USERS}) SELECT i FROM s)`),
    );
    db.exec('ANALYZE');
    db.close();
    const store = openSqliteStore({ path });
    await measure('SQLite', store);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<void> {
  const schema = `circulation_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: values.postgres });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const url = new URL(values.postgres);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const store = await openPostgresStore({ url: url.href });
    await admin.query(`SET search_path = ${schema}`);
    await admin.query(SEED_SQL(`generate_series(1, ${USERS}) AS i`));
    await admin.query('ANALYZE users');
    await measure('PostgreSQL', store);
    await store.close();
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

console.log(`store queries at ${USERS} users, ${RUNS} runs each (${new Date().toISOString()})`);
await sqlite();
await postgres();
