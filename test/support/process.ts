/**
 * The service as its own process, started as `npm start` starts it (the build in dist/, which
 * `npm test` makes first), on a free port: for tests of what only a real process shows.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { eventually } from './eventually.js';
import { OpenApiContract, type OpenApiDocument } from './openapi-contract.js';
import { ANSWER_RECORDER, recordedAnswers } from './recorded-answers.js';
import { Client, processContract, TEST_ADMIN_KEY } from './service.js';
import { openTestStore, type StoreKind, type TestStore } from './stores.js';

/** The service key of test processes that need one (PostgreSQL has no key file), new for each run. */
export const TEST_SERVICE_KEY = randomBytes(32).toString('base64');

export const MAIN = ['dist/main.js'];
export const CLI = ['dist/main.js'];

/** Runs `circulation ARGS…` to its end on the database `databaseUrl`, as an operator would. */
export function runCommand(databaseUrl: string, ...args: string[]) {
  return spawnSync(process.execPath, [...CLI, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

/** The build must be newer than every source file, or the processes would run old code. */
function assertBuildIsCurrent(): void {
  const built = statSync('dist/main.js', { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = readdirSync('src', { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const newest = Math.max(...sources.map((e) => statSync(join(e.parentPath, e.name)).mtimeMs));
  if (newest > built)
    throw new Error('dist/ is older than src/: run `npm run build` (npm test does) before these tests');
}
assertBuildIsCurrent();

export interface ServiceProcess {
  client: Client;
  baseUrl: string;
  pid: number;
  /** Everything the process has written to stdout and stderr so far. */
  output(): string;
  /** Waits (up to 10 s) until the output matches, and answers the match. */
  until(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends SIGTERM and answers the exit code; fails if any answer the process gave left its document. */
  stop(): Promise<number | null>;
  /** Sends a signal and answers the exit code, or the signal that ended the process; fails as `stop` does. */
  kill(signal: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
  /** How many of its answers were checked against its document, once the process has ended. */
  answersChecked(): Promise<number>;
}

/**
 * Starts the service as its own process with `env` over the tests' defaults, answering once it
 * listens. Every answer it gives is written down and checked against its document when it ends.
 */
export async function startProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const answersDirectory = mkdtempSync(join(tmpdir(), 'circulation-answers-'));
  const child = spawn(process.execPath, ['--import', ANSWER_RECORDER, ...MAIN], {
    env: {
      ...process.env,
      ANSWERS_DIR: answersDirectory,
      PORT: '0',
      LOG_LEVEL: 'info',
      CIRCULATION_ADMIN_KEY: TEST_ADMIN_KEY,
      RATE_LIMIT: '1000000',
      RATE_LIMIT_BURST: '1000000',
      // A first start shows its secret rather than leave a file behind; the tests of that file set their own.
      FIRST_ADMIN_KEY_FILE: '-',
      // Stopping at once: the tests of draining set their own.
      SHUTDOWN_DRAIN_MS: '0',
      // Test endpoints listen on loopback.
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1',
      // Failed sign-ins answer at once: no process test is about their timing.
      SIGN_IN_FAILURE_FLOOR_MS: '0',
      // Nor about the wait for a pooled connection, or for a row lock: under 50 concurrent writes on
      // Citus, whose transactions are longer, two seconds of the one and five of the other ran out on
      // a 2-core machine (503 STORE_UNAVAILABLE), 40 changes of one reader queued on its row.
      DATABASE_CONNECT_TIMEOUT_MS: '15000',
      DATABASE_STATEMENT_TIMEOUT_MS: '15000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ended = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  const secureCookie = env.PUBLIC_URL?.startsWith('https:') ?? false;
  const answers = recordedAnswers(answersDirectory, () => processContract(secureCookie), ended);
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: string) => {
      output += chunk;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    void exited.then((code) => reject(new Error(`the service exited with ${code}: ${output}`)));
  });
  return {
    client: new Client(baseUrl),
    baseUrl,
    pid: child.pid as number,
    output: () => output,
    until(pattern) {
      return eventually(
        () => pattern.exec(output),
        () => `the output to match ${pattern}: ${output}`,
      );
    },
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      await answers.assertHeld();
      return code;
    },
    async kill(signal) {
      child.kill(signal);
      const end = await ended;
      await answers.assertHeld();
      return end;
    },
    answersChecked: answers.checked,
  };
}

/** The service in a process of its own over a fresh test database: an API test's service, seen from outside. */
export interface RemoteService extends Pick<TestStore, 'kind' | 'databaseUrl' | 'sql' | 'snapshot' | 'rawDump'> {
  client: Client;
  baseUrl: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts the service as a process on a fresh database of `kind`, its client checking responses
 * against the service's own OpenAPI document as `startService` does; `close` stops it and
 * removes the data.
 */
export async function startServiceProcess(kind: StoreKind, env: Record<string, string> = {}): Promise<RemoteService> {
  const store = await openTestStore(kind);
  const service = await startProcess({
    DATABASE_URL: store.databaseUrl,
    SERVICE_SECRET_KEY: TEST_SERVICE_KEY,
    ...env,
  });
  const document = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  return {
    kind,
    databaseUrl: store.databaseUrl,
    sql: store.sql,
    snapshot: store.snapshot,
    rawDump: store.rawDump,
    client: new Client(service.baseUrl, TEST_ADMIN_KEY, OpenApiContract.of(document)),
    baseUrl: service.baseUrl,
    pid: service.pid,
    async close() {
      await service.stop();
      await store.close();
    },
  };
}
