/**
 * `npm run bench`: the service against the runtime's own limit, scenario by scenario.
 *
 *   npm run bench -- --users 100000 --stores sqlite,postgres --duration 10
 *   CITUS_URL=… npm run bench -- --users 10000 --stores postgres,citus
 *   npm run bench -- --users 1000000 --stores sqlite,postgres --seeded --seed-only   (then again without --seed-only)
 *   npm run bench -- --scenarios "GET one subscription,access" --interleave --rounds 10 --duration 20
 *   npm run bench -- --scenarios "GET the draw report" --report-max-age 60   (counts kept, as served)
 *   npm run bench -- --scenarios "list page 1" --seeded --against ../before   (this build against another)
 *
 * For each store it seeds a fresh database (three subscriptions a user) through the store's bulk
 * import, starts the real service (production build, credentials on, logging on) and loads it
 * from a separate autocannon process. Before each scenario it captures the exact response the
 * service gives and serves those bytes from a bare node:http server, loaded the same way,
 * alternating service and baseline, and reads the CPU time each request cost the service and the
 * local PostgreSQL. With --interleave the chosen scenarios take their turns in rotation, so that
 * their rows compare under one state of a shared machine. It prints one table and writes the same
 * as JSON under bench/results/.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { EVENT_TYPES } from '../src/domain/events.js';
import { SUBSCRIPTIONS_PER_USER, seed, seedEmail, domainCount } from '../src/transfer/seed.js';
import { openPostgresStore } from '../src/store/postgres/open.js';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import { cpuMicros } from './process-cpu.js';
import type { Store } from '../src/store/port.js';
import type { LoadRequest, LoadSpec } from './load-worker.js';

const { values: args } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    stores: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    scenarios: { type: 'string' },
    soak: { type: 'string', default: '0' },
    'cpu-prof': { type: 'boolean', default: false },
    /** Register a webhook for every event, to a local endpoint answering 204: writes then fan out and deliver. */
    webhook: { type: 'boolean', default: false },
    postgres: { type: 'string', default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    /** A database on a Citus coordinator with its workers registered, for the store `citus`. */
    citus: { type: 'string', default: process.env.CITUS_URL },
    /**
     * Seed once and keep: each store's database at this size is kept (SQLite in the temp
     * directory, a PostgreSQL schema named by store and size) and reused by the next run with
     * --seeded, because seeding 1,000,000 users takes longer than measuring them. The load's own
     * writes stay in it, a few thousand rows beside the seeded ones.
     */
    seeded: { type: 'boolean', default: false },
    /** With --seeded: seed the kept databases and stop, so they can be made while the machine is busy. */
    'seed-only': { type: 'boolean', default: false },
    /**
     * The service's REPORT_MAX_AGE_SECONDS: 0 (the default here) counts the dashboard's report and
     * a date's draw anew on every request, the work a count costs; the service's own default, 60,
     * answers them from the last count, what a reader of the report waits for in production.
     */
    'report-max-age': { type: 'string', default: '0' },
    /** How many times service and baseline take turns in a scenario, sharing --duration a side. */
    rounds: { type: 'string', default: '2' },
    /**
     * The chosen scenarios' rounds take turns (round 1 of each, then round 2 of each, …), so that
     * rows compare under the same state of a shared machine; each row is also given against the
     * first, round by round.
     */
    interleave: { type: 'boolean', default: false },
    /**
     * The root of another checkout of the service, its dist/ built, on the same database schema:
     * each scenario's rounds alternate between that build and this one on the same database, and
     * each of its rows is given over this build's, round by round: the two builds compared under
     * one state of a machine that drifts between runs.
     */
    against: { type: 'string' },
  },
});
const USERS = Number(args.users);
/** The publication date of the print run the print scenarios ask for: tomorrow, in UTC (the seeded service's zone). */
const RUN_DATE = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const DURATION = Number(args.duration);
const WARMUP = Number(args.warmup);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Math.max(1, Number(args.rounds));
const ADMIN_KEY = `bench-admin-${process.pid}-${'x'.repeat(32)}`;
const MEDIA_TYPE = 'application/vnd.api+json';
const HERE = new URL('.', import.meta.url).pathname;
const TSX = [join(HERE, '../node_modules/tsx/dist/cli.mjs')];

interface Scenario {
  name: string;
  /** Requests the load cycles through; the first is the one whose answer the baseline serves. */
  requests(): LoadRequest[];
  /** Runs alone with its own connection count (e.g. 50 concurrent creates). */
  connections?: number;
  /** Makes what the requests need, through the service (with the load's credential), before they are made. */
  setup?(serviceUrl: string, secret: string): Promise<void>;
  /**
   * Its setup leaves the store changed for every scenario measured after it: chosen only when
   * `--scenarios` names it in full, never by a part of its name nor in a run of every scenario.
   */
  onlyByName?: true;
}

interface Row {
  scenario: string;
  store: string;
  users: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  baselineRequestsPerSecond: number;
  ratio: number;
  peakRssMb: number;
  /** CPU time per request of the service's process, and of the local PostgreSQL's processes, in µs. */
  serviceCpuMicros?: number;
  databaseCpuMicros?: number;
  /** CPU time per request of the bare server, in µs. */
  baselineCpuMicros?: number;
  non2xx: number;
  /** The service's event-loop delay over its turns, ms: the largest of the rounds' 99th percentiles, and the largest. */
  eventLoopP99Ms?: number;
  eventLoopMaxMs?: number;
  note?: string;
  /** Each round's req/s over its baseline's, in order. */
  roundRatios: number[];
  /**
   * The bare server's CPU time per request over the service's (with the database's): the share of
   * the runtime's limit by what each spends, which the load generator, sharing the machine, does
   * not bend as it bends req/s. Over the whole run, and each round's.
   */
  cpuRatio?: number;
  roundCpuRatios?: number[];
  /** The CPU time per request of each round, the service's and the database's together, in µs. */
  roundCpuMicros?: number[];
  /** Interleaved: this row's ratio over the batch's first row's, round by round (and by CPU). */
  againstFirst?: { scenario: string; cpu?: Spread } & Spread;
  /** With --against, the other build's row: its ratio and its CPU a request over this build's, round by round. */
  againstBuild?: { build: string; ratio: Spread; cpuMicros: Spread };
}

interface Spread {
  median: number;
  min: number;
  max: number;
}

const random = (n: number) => 1 + Math.floor(Math.random() * n);
/** The ids of user n's subscriptions: seeding gives users and subscriptions sequential ids. */
const subscriptionOf = (n: number, k = 0) => (n - 1) * SUBSCRIPTIONS_PER_USER + 1 + k;
const many = <T>(make: () => T, count = 2000) => Array.from({ length: count }, make);
/** How many site licences the network scenarios make, five ranges each. */
const NETWORK_LICENCES = 10_000;
/** Licence n's address block: 10.a.b.0/24, n's own, a = n >> 8, b = n & 255. */
const blockOf = (n: number) => `10.${n >> 8}.${n & 255}`;
/**
 * Licence n's five ranges: its /24, a host inside it, the lower half of licence n + 1's /24 (so an
 * address there is held by two licences), a /22 of its own elsewhere, and an IPv6 /48.
 */
const networkRangesOf = (n: number) => [
  `${blockOf(n)}.0/24`,
  `${blockOf(n)}.${(n % 250) + 1}/32`,
  `${blockOf(n + 1)}.0/25`,
  `100.${(n >> 6) & 255}.${(n & 63) * 4}.0/22`,
  `2001:db8:${n.toString(16)}::/48`,
];
/** An address in the block of one of 12,000 licence numbers: 10,000 licensed, the rest not. */
const licensedIpv4 = () => `${blockOf(random(NETWORK_LICENCES * 1.2))}.${random(254)}`;
const licensedIpv6 = () => `2001:db8:${random(NETWORK_LICENCES * 1.2).toString(16)}::${random(0xfffe).toString(16)}`;

/** A site licence of online access since 2025, on the given terms (ranges, domains), as a request body. */
const siteLicenceBody = (terms: Record<string, string[]>) =>
  JSON.stringify({
    data: {
      type: 'subscriptions',
      attributes: { dateStarted: '2025-01-01T00:00:00+00:00', license: 'site', resource: 'online', ...terms },
    },
  });

/**
 * The site licences of the network scenarios, one to each of the first NETWORK_LICENCES users,
 * made through the service unless a database kept with --seeded has them already; with the
 * load's credential, whose rate limit is far above what this makes.
 */
async function createNetworkLicences(serviceUrl: string, secret: string): Promise<void> {
  const probe = await request(serviceUrl, secret, { method: 'GET', path: `/access?filter[ip]=${blockOf(1)}.1` });
  if ((JSON.parse(probe.body.toString()) as { data: { attributes: { online: boolean } } }).data.attributes.online)
    return;
  process.stderr.write(`creating ${NETWORK_LICENCES} site licences with ${NETWORK_LICENCES * 5} ranges\n`);
  for (let n = 1; n <= NETWORK_LICENCES; n += 50) {
    const batch = Array.from({ length: Math.min(50, NETWORK_LICENCES - n + 1) }, (_, i) =>
      request(serviceUrl, secret, {
        method: 'POST',
        path: `/users/${n + i}/subscriptions`,
        body: siteLicenceBody({ ipRanges: networkRangesOf(n + i) }),
      }),
    );
    for (const { status, body } of await Promise.all(batch))
      if (status !== 201) throw new Error(`a licence was refused: ${body.toString()}`);
  }
}
/** Readers with a password, made before the sign-in scenarios (each costs a hash to create). */
const SIGN_IN_READERS = 200;
/** Readers without a subscription, made before the scenario that checks their access. */
const NON_SUBSCRIBERS = 100;
const READER_PASSWORD = 'a bench reader passphrase';
const readerEmail = (n: number) => `bench-reader-${n}@sign-in.example`;
const signInBody = (n: number) =>
  JSON.stringify({ data: { type: 'sign-ins', attributes: { email: readerEmail(n), password: READER_PASSWORD } } });
/** A cursor anywhere in the list but its last thousand users, so that every page it starts is full. */
const cursor = () => random(Math.max(1, USERS - 1000)) - 1;
const subscriptionBody = (id?: number) =>
  JSON.stringify({
    data: {
      type: 'subscriptions',
      ...(id === undefined ? {} : { id: String(id) }),
      attributes: {
        dateStarted: '2025-01-01T00:00:00+00:00',
        dateEnded: '2026-01-01T00:00:00+00:00',
        license: 'individual',
        resource: 'online',
        trial: Math.random() < 0.5,
      },
    },
  });

/** The deepest page of 100 users that page[number] reaches (the service caps the offset at 10,000). */
const DEEPEST_NUMBERED_PAGE = 100;

function scenarios(deepPage: number, deepNextLink: string): Scenario[] {
  let expireCursor = 0;
  let userCounter = 0;
  let nonSubscribers: string[] = [];
  return [
    {
      name: 'GET one subscription',
      requests: () =>
        many(() => {
          const n = random(USERS);
          return { method: 'GET', path: `/users/${n}/subscriptions/${subscriptionOf(n)}` };
        }),
    },
    { name: 'GET one user', requests: () => many(() => ({ method: 'GET', path: `/users/${random(USERS)}` })) },
    {
      name: "GET a user's subscriptions",
      requests: () => many(() => ({ method: 'GET', path: `/users/${random(USERS)}/subscriptions` })),
    },
    {
      // A paywall polling readers it holds: the seeded subscriptions are all at version 1.
      name: 'GET one subscription, If-None-Match current (304)',
      requests: () =>
        many(() => {
          const n = random(USERS);
          return {
            method: 'GET',
            path: `/users/${n}/subscriptions/${subscriptionOf(n)}`,
            headers: { 'if-none-match': '"1"' },
          };
        }),
    },
    { name: 'list page 1', requests: () => [{ method: 'GET', path: '/users' }] },
    {
      name: 'list page 1, Accept-Encoding: gzip',
      requests: () => [{ method: 'GET', path: '/users', headers: { 'accept-encoding': 'gzip' } }],
    },
    {
      name: 'list page 1, Accept-Encoding: br',
      requests: () => [{ method: 'GET', path: '/users', headers: { 'accept-encoding': 'br' } }],
    },
    { name: `list page ${deepPage} via links.next`, requests: () => [{ method: 'GET', path: deepNextLink }] },
    {
      // The deepest page by number the service serves (an OFFSET of 9,900); deeper is a 400.
      name: `list page ${DEEPEST_NUMBERED_PAGE} via page[number]`,
      requests: () => [{ method: 'GET', path: `/users?page[number]=${DEEPEST_NUMBERED_PAGE}` }],
    },
    {
      name: 'filter by exact email',
      requests: () =>
        many(() => ({
          method: 'GET',
          path: `/users?filter[email]=${encodeURIComponent(seedEmail(random(USERS), USERS))}`,
        })),
    },
    {
      name: 'filter by domain (≤ 100 matches)',
      requests: () =>
        many(() => ({ method: 'GET', path: `/users?filter[email]=d${random(domainCount(USERS)) - 1}.example` })),
    },
    {
      name: 'filter by circulationNumber',
      requests: () => many(() => ({ method: 'GET', path: `/users?filter[circulationNumber]=C-${random(USERS)}` })),
    },
    {
      // A caller's name as an agent types it, one typo off a name no reader has: the prefix reads
      // find nobody, and the trigram index is read for names one typo from it (sort=relevance).
      name: 'search one typo off (nunes)',
      requests: () => [{ method: 'GET', path: '/users?filter[q]=nunes&sort=relevance&page[size]=20' }],
    },
    {
      // One typo off a name one seeded reader in nine has: the trigram read is cut at its bound.
      name: 'search one typo off a common name (lovelase)',
      requests: () => [{ method: 'GET', path: '/users?filter[q]=lovelase&sort=relevance&page[size]=20' }],
    },
    {
      name: "GET a user's access",
      requests: () => many(() => ({ method: 'GET', path: `/users/${random(USERS)}/access` })),
    },
    {
      // Every seeded user has an active subscription, but many a reader a paywall checks has none:
      // the check then finds nothing active and must still tell the reader from no reader.
      name: "GET a non-subscriber's access",
      setup: async (serviceUrl) => {
        nonSubscribers = await createNonSubscribers(serviceUrl);
      },
      requests: () =>
        many(() => ({ method: 'GET', path: `/users/${nonSubscribers[random(nonSubscribers.length) - 1]}/access` })),
    },
    {
      // A site licence names one seeded domain, d1.example (one reader in domainCount has it):
      // every check then reads the reader's domain with their subscriptions, and those readers'
      // checks read the licences too.
      name: "GET a user's access with a domain licensed",
      onlyByName: true,
      setup: async (serviceUrl) => {
        const created = await request(serviceUrl, ADMIN_KEY, {
          method: 'POST',
          path: '/users/1/subscriptions',
          body: siteLicenceBody({ emailDomains: ['d1.example'] }),
        });
        if (created.status !== 201) throw new Error(`the licence was refused: ${created.body.toString()}`);
      },
      requests: () => many(() => ({ method: 'GET', path: `/users/${random(USERS)}/access` })),
    },
    {
      // The paywall's check of an institution's visitor: 10,000 site licences with 50,000 ranges
      // (some overlapping) and a random address, one in six held by none.
      name: 'GET access by network (IPv4)',
      onlyByName: true,
      setup: createNetworkLicences,
      requests: () => many(() => ({ method: 'GET', path: `/access?filter[ip]=${licensedIpv4()}` })),
    },
    {
      // The same for IPv6 addresses, whose ranges here use one prefix length (/48).
      name: 'GET access by network (IPv6)',
      onlyByName: true,
      setup: createNetworkLicences,
      requests: () => many(() => ({ method: 'GET', path: `/access?filter[ip]=${licensedIpv6()}` })),
    },
    {
      // A reader's newsletter consents, as a site's preference page reads them: the seed gives two
      // in three readers one or two newsletters, and the rest none.
      name: "GET a reader's consents",
      requests: () => many(() => ({ method: 'GET', path: `/users/${random(USERS)}/newsletter-consents` })),
    },
    {
      // The seed puts users 3k+1 on the weekly newsletter: a full page anywhere in the list, by a seek.
      name: 'filter[newsletter] page',
      requests: () => many(() => ({ method: 'GET', path: `/users?filter[newsletter]=weekly&page[after]=${cursor()}` })),
    },
    {
      // About 40% of seeded users get print now, by a print subscription or a print product.
      name: 'filter[status]=active&filter[resource]=print page',
      requests: () =>
        many(() => ({
          method: 'GET',
          path: `/users?filter[status]=active&filter[resource]=print&page[after]=${cursor()}`,
        })),
    },
    {
      // Tomorrow's print run (what fulfilment asks for the night before), a page of 100 from
      // anywhere in it: a seek on subscription id past a random one of the 3 a user the seed makes.
      name: 'GET a page of the print run for a date',
      requests: () =>
        many(() => ({
          method: 'GET',
          path: `/deliveries?filter[date]=${RUN_DATE}&page[size]=100&page[after]=${random(USERS * 3)}`,
        })),
    },
    {
      // The same run counted by product and postal code: every delivery of the date is read.
      name: 'GET the draw report for a date',
      requests: () => [{ method: 'GET', path: `/reports/draw?filter[date]=${RUN_DATE}` }],
    },
    {
      name: 'create a subscription',
      requests: () =>
        many(() => ({ method: 'POST', path: `/users/${random(USERS)}/subscriptions`, body: subscriptionBody() })),
    },
    {
      name: 'update a subscription',
      requests: () =>
        many(() => {
          const n = random(USERS);
          const id = subscriptionOf(n, 1);
          return { method: 'PUT', path: `/users/${n}/subscriptions/${id}`, body: subscriptionBody(id) };
        }),
    },
    {
      name: 'expire a subscription',
      // Each request expires a subscription not yet expired (the third of each user, in order).
      requests: () =>
        many(
          () => {
            expireCursor = (expireCursor % USERS) + 1;
            return {
              method: 'PUT',
              path: `/users/${expireCursor}/subscriptions/${subscriptionOf(expireCursor, 2)}/expire`,
            };
          },
          Math.min(USERS, 200_000),
        ),
    },
    {
      name: 'create a user (argon2id)',
      requests: () =>
        many(() => {
          userCounter += 1;
          const email = `bench${process.pid}-${userCounter}-${Math.random().toString(36).slice(2)}@new.example`;
          const attributes = { email, familyName: 'Bench', password: 'a long enough password' };
          return { method: 'POST', path: '/users', body: JSON.stringify({ data: { type: 'users', attributes } }) };
        }, 50_000),
    },
    {
      name: 'sign in (argon2id verify)',
      // Right passwords only: each success also records the sign-in and its event.
      requests: () => many(() => ({ method: 'POST', path: '/sign-ins', body: signInBody(random(SIGN_IN_READERS)) })),
    },
    {
      name: 'mixed (90% reads)',
      requests: () => many(mixedRequest),
    },
    {
      // The seed gives every user a subscription to digital-annual: its count reads an index entry
      // of each, as long as the table.
      name: 'GET a product every user subscribes to',
      requests: () => many(() => ({ method: 'GET', path: `/products/${EVERY_USERS_PRODUCT}` })),
    },
    {
      // The mixed load with counts as long as the table among it: one request in fifty that
      // product, one in five hundred the dashboard's report (counted anew unless --report-max-age
      // says otherwise). Its row gives the event loop's delay.
      name: 'mixed with long counts',
      requests: () =>
        many(() => {
          const roll = Math.random();
          if (roll < 0.002) return { method: 'GET', path: '/reports/subscriptions' };
          if (roll < 0.022) return { method: 'GET', path: `/products/${EVERY_USERS_PRODUCT}` };
          return mixedRequest();
        }),
    },
  ];
}

/** The product the seed subscribes every user to. */
const EVERY_USERS_PRODUCT = 'digital-annual';

/** One request of the mixed load: nine reads in ten, of one reader each. */
function mixedRequest(): LoadRequest {
  const n = random(USERS);
  const roll = Math.random();
  if (roll < 0.4) return { method: 'GET', path: `/users/${n}/subscriptions/${subscriptionOf(n)}` };
  if (roll < 0.65) return { method: 'GET', path: `/users/${n}` };
  if (roll < 0.8) return { method: 'GET', path: `/users/${n}/subscriptions` };
  if (roll < 0.9) return { method: 'GET', path: `/users?filter[circulationNumber]=C-${n}` };
  if (roll < 0.95) {
    const id = subscriptionOf(n, 1);
    return { method: 'PUT', path: `/users/${n}/subscriptions/${id}`, body: subscriptionBody(id) };
  }
  return { method: 'POST', path: `/users/${n}/subscriptions`, body: subscriptionBody() };
}

/** Runs a child process to completion and answers its stdout. */
function run(command: string, argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${argv.join(' ')} exited ${code}`))));
  });
}

async function load(
  url: string,
  requests: LoadRequest[],
  seconds: number,
  connections: number,
  work: string,
  secret: string,
) {
  const spec: LoadSpec = {
    url,
    headers: { accept: MEDIA_TYPE, 'content-type': MEDIA_TYPE, authorization: `Bearer ${secret}` },
    requests,
    connections,
    durationSeconds: seconds,
  };
  const file = join(work, `spec-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return JSON.parse(await run(process.execPath, [...TSX, join(HERE, 'load-worker.ts'), file])) as LoadResult;
}

/** What one turn of load measured. */
interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  total: number;
}

/**
 * The CPU time used so far by every process of the local PostgreSQL (and Citus) servers, in µs:
 * the database's share of a request, which req/s on a shared machine hides. A server elsewhere
 * counts as none. A backend that ends (a connection closed) takes its time out of the living
 * processes' into its postmaster's reaped children's, which is therefore counted too: without
 * it a turn in which connections closed read as a negative time.
 */
function databaseCpuMicros(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        total += cpuMicros(Number(entry), { reaped: true });
    } catch {
      // The process ended.
    }
  }
  return total;
}

/** The highest resident set size of a process while `during` runs, in MB. */
async function peakRss<T>(pid: number, during: Promise<T>): Promise<[T, number]> {
  let peak = 0;
  const sample = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb / 1024);
    } catch {
      // The process ended.
    }
  };
  const timer = setInterval(sample, 100);
  sample();
  const result = await during;
  clearInterval(timer);
  sample();
  return [result, Math.round(peak)];
}

async function startBaseline(work: string, response: { status: number; headers: Headers; body: Buffer }) {
  const file = join(work, `response-${Math.random().toString(36).slice(2)}.json`);
  const headers: Record<string, string> = {};
  for (const name of [
    'content-type',
    'location',
    'cache-control',
    'x-content-type-options',
    'x-frame-options',
    'content-security-policy',
    'referrer-policy',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'x-request-id',
    'etag',
    'vary',
    'content-encoding',
  ]) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  writeFileSync(file, JSON.stringify({ status: response.status, headers, body: response.body.toString('base64') }));
  const child = spawn(process.execPath, [...TSX, join(HERE, 'baseline-server.ts'), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [port, pid] = await new Promise<string[]>((resolve) =>
    child.stdout.once('data', (chunk) => resolve(String(chunk).trim().split(' '))),
  );
  return { url: `http://127.0.0.1:${port}`, pid: Number(pid), stop: () => child.kill('SIGTERM') };
}

interface Service {
  url: string;
  pid: number;
  process: ChildProcess;
  readyMs: number;
}

/** This build's service, unless another is named. */
const MAIN = join(HERE, '../dist/main.js');

async function startService(env: Record<string, string>, work: string, main = MAIN): Promise<Service> {
  const logFile = join(work, `service-${Date.now()}.log`);
  const log = openSync(logFile, 'w');
  const started = performance.now();
  const flags = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${join(HERE, 'results', 'profiles')}`] : [];
  const child = spawn(process.execPath, [...flags, main], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', CIRCULATION_ADMIN_KEY: ADMIN_KEY, ...env },
    stdio: ['ignore', log, log],
  });
  for (;;) {
    const text = readFileSync(logFile, 'utf8');
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
    if (match?.[1]) {
      const url = match[1];
      while ((await fetch(`${url}/health/ready`).catch(() => undefined))?.status !== 200) await sleep(5);
      return { url, pid: child.pid as number, process: child, readyMs: Math.round(performance.now() - started) };
    }
    if (child.exitCode !== null) throw new Error(`the service exited: ${text}`);
    await sleep(5);
  }
}

/**
 * An endpoint that answers every delivery 204, and a webhook to it for every event type: the
 * write scenarios then also write deliveries and the service also sends them.
 */
async function startWebhookSink(serviceUrl: string): Promise<{ received: () => number; stop: () => void }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume().on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const events = [...EVENT_TYPES];
  const created = await request(serviceUrl, ADMIN_KEY, {
    method: 'POST',
    path: '/webhooks',
    body: JSON.stringify({ data: { type: 'webhooks', attributes: { url, events } } }),
  });
  if (created.status !== 201) throw new Error(`the webhook was refused: ${created.body.toString()}`);
  return { received: () => received, stop: () => server.close() };
}

/** Creates `count` users through the API (as admin), ten at a time, user n with `attributes(n)`; answers their ids. */
async function createUsers(
  serviceUrl: string,
  count: number,
  attributes: (n: number) => Record<string, unknown>,
): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 1; n <= count; n += 10) {
    const batch = Array.from({ length: Math.min(10, count - n + 1) }, (_, i) =>
      request(serviceUrl, ADMIN_KEY, {
        method: 'POST',
        path: '/users',
        body: JSON.stringify({ data: { type: 'users', attributes: attributes(n + i) } }),
      }),
    );
    for (const { status, body } of await Promise.all(batch)) {
      if (status !== 201) throw new Error(`a user was refused: ${body.toString()}`);
      ids.push((JSON.parse(body.toString()) as { data: { id: string } }).data.id);
    }
  }
  return ids;
}

/** The readers the sign-in scenarios sign in as. */
async function createReaders(serviceUrl: string): Promise<void> {
  process.stderr.write(`creating ${SIGN_IN_READERS} readers with a password\n`);
  await createUsers(serviceUrl, SIGN_IN_READERS, (n) => ({
    email: readerEmail(n),
    familyName: 'Reader',
    password: READER_PASSWORD,
  }));
}

/** Readers without a subscription (and without a password, so no hash to wait for); answers their ids. */
function createNonSubscribers(serviceUrl: string): Promise<string[]> {
  // Unique across runs: a database kept with --seeded holds the earlier runs' readers.
  const run = Date.now();
  return createUsers(serviceUrl, NON_SUBSCRIBERS, (n) => ({
    email: `browser-${run}-${n}@bench.example`,
    familyName: 'Browser',
  }));
}

async function stopService(service: Service): Promise<void> {
  const exited = new Promise((resolve) => service.process.once('exit', resolve));
  service.process.kill('SIGTERM');
  await exited;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request through node:http, which leaves a compressed body as it came (fetch would decode it). */
function request(url: string, secret: string, r: LoadRequest) {
  return new Promise<{ status: number; headers: Headers; body: Buffer }>((resolve, reject) => {
    const headers = { accept: MEDIA_TYPE, 'content-type': MEDIA_TYPE, authorization: `Bearer ${secret}`, ...r.headers };
    httpRequest(url + r.path, { method: r.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(response.headers))
          if (typeof value === 'string') received.set(name, value);
        resolve({ status: response.statusCode ?? 0, headers: received, body: Buffer.concat(chunks) });
      });
    })
      .on('error', reject)
      .end(r.body);
  });
}

async function openBenchStore(
  kind: string,
  work: string,
): Promise<{
  store: Store;
  databaseUrl: string;
  seeded: boolean;
  /** Once seeding has finished: PostgreSQL's statistics gathered, and with --seeded the mark set. */
  seedingDone(): Promise<void>;
  drop(): Promise<void>;
}> {
  if (kind === 'sqlite') {
    const path = args.seeded ? join(tmpdir(), `circulation-bench-seeded-${USERS}.db`) : join(work, 'bench.db');
    // The mark is written once seeding has finished, so an interrupted seeding starts over.
    const mark = `${path}.seeded`;
    if (args.seeded && !existsSync(mark))
      for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
    return {
      store: openSqliteStore({ path }),
      databaseUrl: `sqlite:${path}`,
      seeded: args.seeded && existsSync(mark),
      seedingDone: async () => (args.seeded ? writeFileSync(mark, new Date().toISOString()) : undefined),
      drop: async () => {},
    };
  }
  // Citus is the PostgreSQL store on a coordinator: the store lays the fresh schema out itself.
  const server = { postgres: args.postgres, citus: args.citus }[kind];
  if (!server) throw new Error(`no store ${kind}: sqlite, postgres, or citus (with CITUS_URL or --citus)`);
  const schema = args.seeded ? `circulation_bench_seeded_${kind}_${USERS}` : `circulation_bench_${kind}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  // The mark is the schema's comment, set once seeding has finished.
  const marked = await admin.query('SELECT obj_description(oid) AS mark FROM pg_namespace WHERE nspname = $1', [
    schema,
  ]);
  const seeded = args.seeded && marked.rows[0]?.mark === 'seeded';
  if (!seeded) {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.query(`CREATE SCHEMA ${schema}`);
  }
  const url = new URL(server);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    // Seeding writes batches of thousands of rows: more than a request's 5 s on a busy machine.
    store: await openPostgresStore({ url: url.href, statementTimeoutMs: 120_000 }),
    databaseUrl: url.href,
    seeded,
    seedingDone: async () => {
      // The statistics autovacuum would gather before long: without them the planner takes the
      // freshly filled tables for empty, and a run straight after seeding measures its bad plans.
      const tables = await admin.query<{ name: string }>(
        "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1",
        [schema],
      );
      // One table a statement: on Citus one ANALYZE of several is one transaction, which may not
      // touch a reference table (products) after working on a distributed one's shards in parallel.
      for (const { name } of tables.rows) await admin.query(`ANALYZE ${name}`);
      if (args.seeded) await admin.query(`COMMENT ON SCHEMA ${schema} IS 'seeded'`);
    },
    drop: async () => {
      if (!args.seeded) await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

async function benchStore(kind: string, work: string): Promise<{ rows: Row[]; extras: Record<string, unknown> }> {
  const { store, databaseUrl, seeded, seedingDone, drop } = await openBenchStore(kind, work);
  const extras: Record<string, unknown> = {};
  if (seeded) {
    process.stderr.write(`${kind}: reusing the database seeded with ${USERS} users (--seeded)\n`);
    extras.reusedSeededDatabase = true;
  } else {
    const seeding = performance.now();
    await seed(store, USERS, {
      onProgress: (done) => process.stderr.write(`\rseeding ${kind}: ${done} / ${USERS} users`),
    });
    const seedSeconds = (performance.now() - seeding) / 1000;
    extras.seedSeconds = seedSeconds;
    process.stderr.write(
      `\rseeded ${USERS} users (${USERS * SUBSCRIPTIONS_PER_USER} subscriptions) in ${seedSeconds.toFixed(1)} s\n`,
    );
    await seedingDone();
  }
  await store.close();
  const rows: Row[] = [];
  if (args['seed-only']) {
    await drop();
    return { rows, extras };
  }
  try {
    const serviceEnv = {
      DATABASE_URL: databaseUrl,
      SERVICE_SECRET_KEY: `bench-service-key-${'k'.repeat(32)}`,
      // The --webhook endpoint listens on loopback.
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1',
      REPORT_MAX_AGE_SECONDS: args['report-max-age'],
    };
    const service = await startService(serviceEnv, work);
    extras.startupToReadyMs = service.readyMs;
    const other = args.against ? await startService(serviceEnv, work, join(args.against, 'dist/main.js')) : undefined;
    // A credential as a paywall would hold: write scope, a rate limit far above the load; and
    // sign-in, which write does not include, for the sign-in scenarios.
    const created = await request(service.url, ADMIN_KEY, {
      method: 'POST',
      path: '/api-keys',
      body: JSON.stringify({
        data: { type: 'api-keys', attributes: { name: 'bench', scopes: ['write', 'sign-in'], rateLimit: 1_000_000 } },
      }),
    });
    const secret = JSON.parse(created.body.toString()).meta.secret as string;
    const sink = args.webhook ? await startWebhookSink(service.url) : undefined;

    const deepPage = Math.max(2, Math.floor(USERS / 100));
    // The seeded users have the ids 1 to USERS in order, so the link to a deep page is known.
    const deepNextLink = `/users?page[number]=${deepPage}&page[after]=${(deepPage - 1) * 100}`;

    // An empty name (a stray comma) would match every scenario.
    const names = args.scenarios?.split(',').filter((name) => name !== '');
    const chosen = scenarios(deepPage, deepNextLink).filter((s) =>
      s.onlyByName ? names?.includes(s.name) : !names || names.some((name) => s.name.includes(name)),
    );
    const underLoad = [
      { name: 'GET one subscription under 50 creates', writes: 'create a user', keyword: 'hash' },
      { name: 'GET one subscription under 50 sign-ins', writes: 'sign in', keyword: 'sign' },
    ].filter((u) => !args.scenarios || args.scenarios.includes(u.keyword));
    if (chosen.some((s) => s.name.startsWith('sign in')) || underLoad.some((u) => u.writes === 'sign in')) {
      await createReaders(service.url);
    }
    // Interleaved, every chosen scenario is made ready first and their rounds then take turns.
    const batches = args.interleave ? [chosen] : chosen.map((scenario) => [scenario]);
    for (const batch of batches) {
      const measured: Measured[] = [];
      const others: Measured[] = [];
      for (const scenario of batch) {
        measured.push(await prepareScenario(scenario, kind, service, secret, work));
        if (other) others.push(await prepareScenario(scenario, kind, other, secret, work));
      }
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [i, m] of measured.entries()) {
          await m.round();
          await others[i]?.round();
        }
      }
      const ours = againstFirst(measured.map((m) => m.row()));
      for (const [i, row] of ours.entries()) {
        rows.push(row);
        const theirs = others[i]?.row();
        if (theirs) rows.push(againstBuild(theirs, row));
      }
    }

    for (const { name, writes } of underLoad) {
      // Password hashing and verifying must not block the event loop: reads keep their latency
      // under 50 concurrent creates, or sign-ins.
      process.stderr.write(`${kind} ${USERS}: ${name}\n`);
      const writeLoad = scenarios(deepPage, deepNextLink)
        .find((s) => s.name.startsWith(writes))!
        .requests();
      const reads = scenarios(deepPage, deepNextLink)[0]!.requests();
      const [[, readResult], rss] = await peakRss(
        service.pid,
        Promise.all([
          load(service.url, writeLoad, DURATION, 50, work, secret),
          load(service.url, reads, DURATION, 5, work, secret),
        ]),
      );
      rows.push({
        scenario: name,
        store: args.webhook ? `${kind}+webhook` : kind,
        users: USERS,
        requestsPerSecond: Math.round(readResult.requestsPerSecond),
        p50: readResult.p50,
        p99: readResult.p99,
        baselineRequestsPerSecond: 0,
        ratio: 0,
        roundRatios: [],
        peakRssMb: rss,
        non2xx: readResult.non2xx,
        note: 'target p99 < 20 ms',
      });
    }

    const soak = Number(args.soak);
    if (soak > 0) {
      process.stderr.write(`${kind} ${USERS}: soak, mixed, ${soak} s\n`);
      const mixed = scenarios(deepPage, deepNextLink)
        .find((s) => s.name.startsWith('mixed'))!
        .requests();
      await load(service.url, mixed, 10, CONNECTIONS, work, secret);
      const rssOf = () =>
        Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.pid}/status`, 'utf8'))?.[1]) / 1024;
      const start = rssOf();
      await load(service.url, mixed, soak, CONNECTIONS, work, secret);
      const end = rssOf();
      extras.soak = {
        seconds: soak,
        rssStartMb: Math.round(start),
        rssEndMb: Math.round(end),
        growthPercent: Math.round(((end - start) / start) * 1000) / 10,
      };
    }

    if (sink) {
      // How long the deliveries of everything the load changed take to go out once it stops.
      const drainStart = performance.now();
      const pending = async () =>
        JSON.parse(
          (
            await request(service.url, ADMIN_KEY, {
              method: 'GET',
              path: '/webhooks/1/deliveries?filter[state]=pending&page[size]=1',
            })
          ).body.toString(),
        ).data.length;
      while ((await pending()) > 0 && performance.now() - drainStart < 600_000) await sleep(100);
      extras.webhook = {
        delivered: sink.received(),
        drainSecondsAfterLoad: Math.round((performance.now() - drainStart) / 100) / 10,
      };
      sink.stop();
    }

    await stopService(service);
    if (other) await stopService(other);
    const restarted = await startService({ DATABASE_URL: databaseUrl }, work);
    extras.restartToReadyMs = restarted.readyMs;
    await stopService(restarted);
  } finally {
    await drop();
  }
  return { rows, extras };
}

/** One turn of a scenario: the load of the service and of the bare server, and the CPU time each took (µs). */
interface Round {
  service: LoadResult;
  baseline: LoadResult;
  cpu: { service: number; database: number; baseline: number };
  eventLoop: EventLoopDelay;
}

/** The service's event-loop delay, in ms, since it was last read. */
interface EventLoopDelay {
  p99: number;
  max: number;
}

/**
 * Reads the event-loop delay the service's /metrics reports (prom-client's, which starts over each
 * time it is read): once before a turn, to start it, and once after, for the turn's.
 */
async function eventLoopDelay(serviceUrl: string): Promise<EventLoopDelay> {
  const { body } = await request(serviceUrl, ADMIN_KEY, { method: 'GET', path: '/metrics' });
  const text = body.toString();
  const seconds = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    p99: hundredths(seconds('nodejs_eventloop_lag_p99_seconds') * 1000),
    max: hundredths(seconds('nodejs_eventloop_lag_max_seconds') * 1000),
  };
}

/** A scenario made ready to measure: its baseline started, both warmed up. */
interface Measured {
  /** One turn of service then baseline. */
  round(): Promise<void>;
  row(): Row;
}

async function prepareScenario(
  scenario: Scenario,
  kind: string,
  service: Service,
  secret: string,
  work: string,
): Promise<Measured> {
  process.stderr.write(`${kind} ${USERS}: ${scenario.name}\n`);
  await scenario.setup?.(service.url, secret);
  const requests = scenario.requests();
  const captured = await request(service.url, secret, requests[0] as LoadRequest);
  if (captured.status >= 400)
    throw new Error(`${scenario.name}: ${captured.status} ${captured.body.toString().slice(0, 300)}`);
  // A compressed answer is reported with the bytes it saves against the same answer uncompressed.
  const { 'accept-encoding': coding, ...uncompressedHeaders } = requests[0]?.headers ?? {};
  const uncompressed =
    coding === undefined
      ? undefined
      : await request(service.url, secret, { ...(requests[0] as LoadRequest), headers: uncompressedHeaders });
  const baseline = await startBaseline(work, captured);
  const connections = scenario.connections ?? CONNECTIONS;
  await load(service.url, requests, WARMUP, connections, work, secret);
  await load(baseline.url, requests, WARMUP, connections, work, secret);
  const slice = Math.max(1, Math.round(DURATION / ROUNDS));
  const rounds: Round[] = [];
  let peak = 0;
  // SQLite runs in the service's process.
  const separateDatabase = kind !== 'sqlite';
  const databaseCpuNow = () => (separateDatabase ? databaseCpuMicros() : 0);
  return {
    async round() {
      await eventLoopDelay(service.url);
      const [serviceBefore, databaseBefore] = [cpuMicros(service.pid), databaseCpuNow()];
      const [result, rss] = await peakRss(service.pid, load(service.url, requests, slice, connections, work, secret));
      const [serviceAfter, databaseAfter] = [cpuMicros(service.pid), databaseCpuNow()];
      const eventLoop = await eventLoopDelay(service.url);
      peak = Math.max(peak, rss);
      const baselineBefore = cpuMicros(baseline.pid);
      const baselineResult = await load(baseline.url, requests, slice, connections, work, secret);
      rounds.push({
        service: result,
        baseline: baselineResult,
        cpu: {
          service: serviceAfter - serviceBefore,
          database: databaseAfter - databaseBefore,
          baseline: cpuMicros(baseline.pid) - baselineBefore,
        },
        eventLoop,
      });
    },
    row() {
      baseline.stop();
      const total = (pick: (round: Round) => number) => rounds.reduce((sum, round) => sum + pick(round), 0);
      const rps = total((r) => r.service.requestsPerSecond) / rounds.length;
      const baselineRps = total((r) => r.baseline.requestsPerSecond) / rounds.length;
      const hashing = scenario.name.startsWith('create a user');
      const verifying = scenario.name.startsWith('sign in');
      const served = total((r) => r.service.total);
      const answered = total((r) => r.baseline.total);
      const perRequest = (micros: number, requests: number) => Math.round((micros / requests) * 10) / 10;
      const cpuOf = (part: keyof Round['cpu']) => total((r) => r.cpu[part]);
      const serviceCpu = perRequest(cpuOf('service'), served);
      const databaseCpu = perRequest(cpuOf('database'), served);
      const baselineCpu = perRequest(cpuOf('baseline'), answered);
      return {
        ...(hashing ? { note: `${Math.round(rps)} argon2id hashes/s` } : {}),
        ...(verifying ? { note: `${Math.round(rps)} argon2id verifies/s` } : {}),
        ...(uncompressed
          ? {
              note: `${(rps / baselineRps).toFixed(2)}; ${captured.headers.get('content-encoding') ?? 'identity'} ${captured.body.length} of ${uncompressed.body.length} bytes (${Math.round((1 - captured.body.length / uncompressed.body.length) * 100)}% saved)`,
            }
          : {}),
        scenario: scenario.name,
        store: args.webhook ? `${kind}+webhook` : kind,
        users: USERS,
        requestsPerSecond: Math.round(rps),
        p50: Math.max(...rounds.map((r) => r.service.p50)),
        p99: Math.max(...rounds.map((r) => r.service.p99)),
        baselineRequestsPerSecond: Math.round(baselineRps),
        ratio: hundredths(rps / baselineRps),
        roundRatios: rounds.map((r) => thousandths(r.service.requestsPerSecond / r.baseline.requestsPerSecond)),
        peakRssMb: peak,
        serviceCpuMicros: serviceCpu,
        ...(separateDatabase ? { databaseCpuMicros: databaseCpu } : {}),
        baselineCpuMicros: baselineCpu,
        cpuRatio: hundredths(baselineCpu / (serviceCpu + databaseCpu)),
        roundCpuRatios: rounds.map((r) =>
          thousandths(r.cpu.baseline / r.baseline.total / ((r.cpu.service + r.cpu.database) / r.service.total)),
        ),
        roundCpuMicros: rounds.map((r) => perRequest(r.cpu.service + r.cpu.database, r.service.total)),
        non2xx: total((r) => r.service.non2xx),
        eventLoopP99Ms: Math.max(...rounds.map((r) => r.eventLoop.p99)),
        eventLoopMaxMs: Math.max(...rounds.map((r) => r.eventLoop.max)),
      };
    },
  };
}

const hundredths = (x: number) => Math.round(x * 100) / 100;
const thousandths = (x: number) => Math.round(x * 1000) / 1000;

/** Each round's figure over the other row's of the same round, as a spread. */
const roundByRound = (mine: number[], theirs: number[]) => spread(mine.map((x, i) => x / (theirs[i] as number)));

/** The other build's row (--against), with its ratio and CPU a request over this build's, round by round. */
function againstBuild(theirs: Row, ours: Row): Row {
  return {
    ...theirs,
    store: `${ours.store}, ${args.against}`,
    againstBuild: {
      build: args.against as string,
      ratio: roundByRound(theirs.roundRatios, ours.roundRatios),
      cpuMicros: roundByRound(theirs.roundCpuMicros ?? [], ours.roundCpuMicros ?? []),
    },
  };
}

/** Rows measured in turn, each after the first also given over the first, round by round. */
function againstFirst(rows: Row[]): Row[] {
  const [first, ...rest] = rows;
  if (!first) return rows;
  return [
    first,
    ...rest.map((row) => ({
      ...row,
      againstFirst: {
        scenario: first.scenario,
        ...roundByRound(row.roundRatios, first.roundRatios),
        ...(row.roundCpuRatios && first.roundCpuRatios
          ? { cpu: roundByRound(row.roundCpuRatios, first.roundCpuRatios) }
          : {}),
      },
    })),
  ];
}

/** The median and range of some quotients, to two places. */
function spread(quotients: number[]): Spread {
  const sorted = [...quotients].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median =
    sorted.length % 2 === 1
      ? (sorted[Math.floor(middle)] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median: hundredths(median), min: hundredths(sorted[0] as number), max: hundredths(sorted.at(-1) as number) };
}

/** The commit measured, marked dirty when the work tree differs from it; undefined outside a clone. */
function codeVersion(): string | undefined {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { cwd: HERE, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

function table(rows: Row[]): string {
  const header = [
    'scenario',
    'store',
    'users',
    'req/s',
    'p50 ms',
    'p99 ms',
    'baseline req/s',
    'ratio',
    'peak RSS MB',
    'service CPU µs/req',
    'database CPU µs/req',
    'baseline CPU µs/req',
    'CPU ratio',
    'event loop p99 / max ms',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    r.store,
    String(r.users),
    String(r.requestsPerSecond),
    String(r.p50),
    String(r.p99),
    r.baselineRequestsPerSecond ? String(r.baselineRequestsPerSecond) : '—',
    r.note ?? (r.baselineRequestsPerSecond ? r.ratio.toFixed(2) : '—'),
    String(r.peakRssMb),
    r.serviceCpuMicros === undefined ? '—' : String(r.serviceCpuMicros),
    r.databaseCpuMicros ? String(r.databaseCpuMicros) : '—',
    r.baselineCpuMicros === undefined ? '—' : String(r.baselineCpuMicros),
    r.cpuRatio === undefined ? '—' : r.cpuRatio.toFixed(2),
    r.eventLoopP99Ms === undefined ? '—' : `${r.eventLoopP99Ms} / ${r.eventLoopMaxMs}`,
  ]);
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

const work = mkdtempSync(join(tmpdir(), 'circulation-bench-'));
try {
  const results = [];
  const allRows: Row[] = [];
  for (const kind of args.stores.split(',')) {
    const { rows, extras } = await benchStore(kind.trim(), work);
    allRows.push(...rows);
    results.push({ store: kind, extras });
  }
  if (args['seed-only']) {
    console.log(`seeded and kept: ${args.stores} at ${USERS} users`);
  } else {
    const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    const date = new Date().toISOString();
    const code = codeVersion();
    console.log(
      `\ncirculation benchmark — ${date} — ${code ?? 'unknown code'} — ${machine}\n${CONNECTIONS} connections, ${DURATION} s a side in ${ROUNDS} rounds${args.interleave ? ', the scenarios interleaved' : ''} after ${WARMUP} s warm-up\n`,
    );
    console.log(table(allRows));
    const said = ({ median, min, max }: Spread) => `median ${median.toFixed(2)} (${min.toFixed(2)}–${max.toFixed(2)})`;
    if (allRows.some((row) => row.againstFirst)) console.log('');
    for (const { scenario, store, againstFirst } of allRows)
      if (againstFirst)
        console.log(
          `${store}: ${scenario} ÷ ${againstFirst.scenario}, round by round: ${said(againstFirst)}${againstFirst.cpu ? `; by CPU ${said(againstFirst.cpu)}` : ''}`,
        );
    for (const { scenario, store, againstBuild } of allRows)
      if (againstBuild)
        console.log(
          `${store}: ${scenario}, that build over this one, round by round: ratio ${said(againstBuild.ratio)}; CPU a request ${said(againstBuild.cpuMicros)}`,
        );
    for (const { store, extras } of results) console.log(`\n${store}: ${JSON.stringify(extras)}`);
    mkdirSync(join(HERE, 'results'), { recursive: true });
    const file = join(HERE, 'results', `${date.replace(/[:.]/g, '-')}-${USERS}.json`);
    writeFileSync(
      file,
      JSON.stringify(
        {
          date,
          machine,
          code,
          users: USERS,
          connections: CONNECTIONS,
          duration: DURATION,
          rounds: ROUNDS,
          interleaved: args.interleave,
          rows: allRows,
          stores: results,
        },
        null,
        2,
      ),
    );
    console.log(`\nwritten to ${file}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
