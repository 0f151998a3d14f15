/**
 * `npm run bench:floor`: the least one read can cost on this service's stack, against the bare
 * runtime, by the benchmark's CPU ratio (the bare server's CPU a request over the server's).
 *
 *   npm run bench:floor -- --rounds 7 --duration 4
 *
 * Four servers answer GET /users/7/subscriptions/20, each in a process of its own:
 * - `bare`: the benchmark's own baseline (baseline-server.ts), sending the document's bytes;
 * - `fastify`: Fastify 5 sending the same string from a route;
 * - `fastify, log line`: and writing one pino line a request, as the service's request log does;
 * - `fastify, log line, read`: and doing the least a real read must: hash the bearer credential
 *   (SHA-256) and look it up, read the row by its key with a prepared better-sqlite3 statement,
 *   and write it as a JSON:API document.
 * The last is a floor under the service's own read, which also counts its rate, its metrics, its
 * ETag, its media types and its security headers. autocannon loads each in turn (50 connections)
 * from this process, round after round, and each round's ratios are taken within it, so that a
 * shared machine's load slows both sides of each alike.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';
import { cpuMicros } from './process-cpu.js';

const VARIANTS = ['bare', 'fastify', 'fastify, log line', 'fastify, log line, read'] as const;
type Variant = (typeof VARIANTS)[number];

const SECRET = 'floor-secret-0123456789';
const PATH = '/users/7/subscriptions/20';

interface Row {
  id: number;
  user_id: number;
  resource: string;
  status: string;
  date_started: string;
  date_ended: string;
  product_id: string;
}

/** Subscription `id` of the floor's table: three a user, all alike. */
const rowOf = (id: number): Row => ({
  id,
  user_id: Math.ceil(id / 3),
  resource: 'print-online',
  status: 'active',
  date_started: '2026-01-01T00:00:00Z',
  date_ended: '2027-01-01T00:00:00Z',
  product_id: 'daily',
});

/** A subscription as a JSON:API document: some 370 bytes, where the service's is some 630 (a floor errs low). */
function documentOf(row: Row): string {
  return JSON.stringify({
    data: {
      type: 'subscriptions',
      id: String(row.id),
      attributes: {
        resource: row.resource,
        status: row.status,
        dateStarted: row.date_started,
        dateEnded: row.date_ended,
      },
      relationships: {
        user: { data: { type: 'users', id: String(row.user_id) } },
        product: { data: { type: 'products', id: row.product_id } },
      },
      links: { self: `http://127.0.0.1${PATH}` },
    },
    jsonapi: { version: '1.1' },
  });
}

/** The document every server sends for subscription 20, the bare one as ready bytes. */
const READY = documentOf(rowOf(20));

/** Serves `variant` (one of Fastify's) on a free port, and says the port and the process id on stdout. */
async function serve(variant: Exclude<Variant, 'bare'>): Promise<void> {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, user_id INTEGER, resource TEXT, status TEXT,
    date_started TEXT, date_ended TEXT, product_id TEXT)`);
  const insert = db.prepare<Row>(`INSERT INTO subscriptions
    VALUES (@id, @user_id, @resource, @status, @date_started, @date_ended, @product_id)`);
  db.transaction(() => {
    for (let id = 1; id <= 30_000; id += 1) insert.run(rowOf(id));
  })();
  const read = db.prepare<[number], Row>('SELECT * FROM subscriptions WHERE id = ?');
  const keys = new Map([[createHash('sha256').update(SECRET).digest('base64'), 'admin']]);
  const log = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }));
  const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });
  if (variant !== 'fastify') {
    app.addHook('onResponse', (request, reply, done) => {
      const { id, method, url } = request;
      log.info({ requestId: id, method, url, statusCode: reply.statusCode, ms: reply.elapsedTime }, 'request');
      done();
    });
  }
  const reads = variant === 'fastify, log line, read';
  app.get<{ Params: { id: string } }>('/users/:user/subscriptions/:id', (request, reply) => {
    reply.header('content-type', 'application/vnd.api+json');
    if (!reads) return reply.send(READY);
    const bearer = (request.headers.authorization ?? '').slice('Bearer '.length);
    if (!keys.has(createHash('sha256').update(bearer).digest('base64'))) return reply.code(401).send('{}');
    return reply.send(documentOf(read.get(Number(request.params.id)) as Row));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${(app.server.address() as AddressInfo).port} ${process.pid}\n`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function measure(rounds: number, seconds: number): Promise<void> {
  const servers: { variant: Variant; child: ChildProcess; port: number; pid: number; micros: number[] }[] = [];
  const work = mkdtempSync(join(tmpdir(), 'circulation-floor-'));
  const response = join(work, 'response.json');
  const headers = { 'content-type': 'application/vnd.api+json' };
  writeFileSync(response, JSON.stringify({ status: 200, headers, body: Buffer.from(READY).toString('base64') }));
  for (const variant of VARIANTS) {
    const script =
      variant === 'bare'
        ? [join(import.meta.dirname, 'baseline-server.ts'), response]
        : [process.argv[1] as string, '--serve', variant];
    const child = spawn(process.execPath, [...process.execArgv, ...script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => child.stdout?.once('data', (data) => resolve(String(data))));
    const [port, pid] = line.trim().split(' ').map(Number) as [number, number];
    servers.push({ variant, child, port, pid, micros: [] });
  }
  try {
    for (let round = 0; round < rounds; round += 1) {
      for (const server of servers) {
        const load = (duration: number) =>
          autocannon({
            url: `http://127.0.0.1:${server.port}${PATH}`,
            connections: 50,
            duration,
            headers: { authorization: `Bearer ${SECRET}` },
          });
        await load(1);
        const before = cpuMicros(server.pid);
        const result = await load(seconds);
        if (result.non2xx > 0) throw new Error(`${server.variant} answered ${result.non2xx} requests with an error`);
        server.micros.push((cpuMicros(server.pid) - before) / result.requests.total);
      }
    }
  } finally {
    for (const server of servers) server.child.kill();
    rmSync(work, { recursive: true, force: true });
  }
  const bare = servers[0] as (typeof servers)[number];
  console.log('| server | CPU µs a request (median) | CPU ratio, round by round | median |');
  console.log('|---|---|---|---|');
  for (const server of servers) {
    const ratios = server.micros.map((micros, round) => (bare.micros[round] as number) / micros);
    const byRound = ratios.map((ratio) => ratio.toFixed(2)).join(', ');
    console.log(
      `| ${server.variant} | ${median(server.micros).toFixed(1)} | ${byRound} | ${median(ratios).toFixed(2)} |`,
    );
  }
}

const { values } = parseArgs({
  options: {
    serve: { type: 'string' },
    rounds: { type: 'string', default: '7' },
    duration: { type: 'string', default: '4' },
  },
});
if (values.serve !== undefined) await serve(values.serve as Exclude<Variant, 'bare'>);
else await measure(Number(values.rounds), Number(values.duration));
