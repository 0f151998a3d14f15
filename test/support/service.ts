/**
 * A real service for the API tests: the application listening on a loopback port over a real
 * store in a fresh temporary database, and a client that speaks JSON:API to it and checks every
 * response on the way: a JSON:API document of the right media type, and never a password (sent in
 * any body, a sign-in's too) or a password hash (argon2 or bcrypt) in it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Ajv } from 'ajv';
import type { FastifyInstance } from 'fastify';
import { parseNetworks } from '../../src/domain/webhooks.js';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { DEFAULT_READER_SETTINGS, type ReaderSettings } from '../../src/use-cases/readers/settings.js';
import type { Store, StoreOptions } from '../../src/store/port.js';
import { jsonApiDocumentSchema } from './jsonapi-schema.js';
import { ContractTap, OpenApiContract, type OpenApiDocument, type ResponseCheck } from './openapi-contract.js';
import { openTestStore, type StoreKind, type TestStore } from './stores.js';

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('uri', (text: string) => URL.canParse(text) && /^[a-z][a-z0-9+.-]*:/i.test(text));
const isJsonApiDocument = ajv.compile(jsonApiDocumentSchema);

export const MEDIA_TYPE = 'application/vnd.api+json';

/** The admin credential of every test service (CIRCULATION_ADMIN_KEY), new for each test run. */
export const TEST_ADMIN_KEY = `test-admin-${randomBytes(24).toString('hex')}`;

/** The webhook key of every test service, new for each test run. */
export const TEST_WEBHOOK_KEY = randomBytes(32);

/** The fingerprint key of every test service, new for each test run. */
export const TEST_FINGERPRINT_KEY = randomBytes(32);

/** The key that signs readers' newsletter links in every test service, new for each test run. */
export const TEST_LINK_KEY = randomBytes(32);

/** Test endpoints listen on loopback, which a service refuses unless told otherwise. */
export const TEST_ALLOWED_NETWORKS = parseNetworks('127.0.0.0/8, ::1');

/** The keys of a test service, as a service key would give them. */
export const TEST_KEYS = {
  webhook: TEST_WEBHOOK_KEY,
  fingerprint: TEST_FINGERPRINT_KEY,
  links: TEST_LINK_KEY,
  device: Buffer.alloc(32, 'device key of the tests'),
};

/** Limits no test reaches but the ones about rate limits. */
export const GENEROUS_RATE_LIMIT = { perSecond: 1_000_000, burst: 1_000_000 };

/** Every password a test sends, so that no response can be checked without them. */
const sentPasswords = new Set<string>();

export interface Response {
  status: number;
  headers: Headers;
  /** The parsed body; undefined when there was none. */
  body: any;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A value to send as JSON, or a string to send as it is. */
  body?: unknown;
}

export class Client {
  /**
   * `credential`: the secret sent as a Bearer token, or null to send none. `contract`: what checks
   * every response against the service's OpenAPI document, when they are to be checked.
   */
  constructor(
    readonly baseUrl: string,
    readonly credential: string | null = TEST_ADMIN_KEY,
    readonly contract?: ResponseCheck,
  ) {}

  /** The same client presenting another credential (null: none). */
  as(credential: string | null): Client {
    return new Client(this.baseUrl, credential, this.contract);
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body: unknown, options?: RequestOptions) {
    return this.request('POST', path, { ...options, body });
  }
  put(path: string, body?: unknown, options?: RequestOptions) {
    return this.request('PUT', path, { ...options, body });
  }
  patch(path: string, body: unknown, options?: RequestOptions) {
    return this.request('PATCH', path, { ...options, body });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      accept: MEDIA_TYPE,
      ...(this.credential === null ? {} : { authorization: `Bearer ${this.credential}` }),
      ...options.headers,
    };
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= MEDIA_TYPE;
      rememberPasswords(options.body);
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body: payload });
    const text = await response.text();
    const result: Response = { status: response.status, headers: response.headers, text, body: undefined };
    if (text !== '') {
      assert.equal(response.headers.get('content-type'), MEDIA_TYPE, `${method} ${path}: content type`);
      result.body = JSON.parse(text);
      assert.ok(
        isJsonApiDocument(result.body),
        `${method} ${path}: not a JSON:API document: ${ajv.errorsText(isJsonApiDocument.errors)}\n${text.slice(0, 500)}`,
      );
      assertNoSecrets(text, `${method} ${path}`);
    }
    this.contract?.check({
      method,
      url: path,
      status: result.status,
      headers: Object.fromEntries(response.headers),
      text,
    });
    return result;
  }
}

export function assertNoSecrets(text: string, where: string): void {
  assert.ok(!/"password(Hash)?"\s*:/.test(text), `${where}: a response names a password attribute`);
  assert.ok(!text.includes('$argon2'), `${where}: a response carries a password hash`);
  assert.ok(!/\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}/.test(text), `${where}: a response carries a bcrypt hash`);
  for (const password of sentPasswords) {
    assert.ok(!text.includes(password), `${where}: a response carries a password that was sent`);
  }
}

function rememberPasswords(body: unknown): void {
  const password = (body as { data?: { attributes?: { password?: unknown } } })?.data?.attributes?.password;
  if (typeof password === 'string' && password.length >= 8) sentPasswords.add(password);
}

export interface Service {
  client: Client;
  baseUrl: string;
  kind: StoreKind;
  store: Store;
  /** The DATABASE_URL of the service's database. */
  databaseUrl: string;
  app: FastifyInstance;
  /** Direct SQL on the service's database; `?` marks a parameter. */
  sql: TestStore['sql'];
  snapshot: TestStore['snapshot'];
  rawDump: TestStore['rawDump'];
  close(): Promise<void>;
}

/**
 * Starts the service on a fresh database of the given kind (its store opened with `storeOptions`,
 * as the settings would open it); `close` stops it and removes the data.
 */
export async function startService(
  kind: StoreKind = 'SQLite',
  options: Partial<Omit<AppOptions, 'store' | 'readers'>> & { readers?: Partial<ReaderSettings> } = {},
  storeOptions: StoreOptions = {},
): Promise<Service> {
  const testStore = await openTestStore(kind, storeOptions);
  const app = await buildApp({
    store: testStore.store,
    auth: { enabled: true, adminKey: TEST_ADMIN_KEY, rateLimit: GENEROUS_RATE_LIMIT },
    keys: TEST_KEYS,
    ...options,
    // Failures answer at once, unless a test of their timing sets the floor.
    readers: { ...DEFAULT_READER_SETTINGS, failureFloorMs: 0, ...options.readers },
    webhooks: { allowedNetworks: TEST_ALLOWED_NETWORKS, ...options.webhooks },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const tap = new ContractTap(app.server, contractOf(app, options.publicUrl?.startsWith('https:') ?? false));
  taps.set(baseUrl, tap);
  return {
    client: new Client(baseUrl, TEST_ADMIN_KEY, tap),
    baseUrl,
    kind,
    store: testStore.store,
    databaseUrl: testStore.databaseUrl,
    app,
    sql: testStore.sql,
    snapshot: testStore.snapshot,
    rawDump: testStore.rawDump,
    async close() {
      taps.delete(baseUrl);
      try {
        await app.close();
      } finally {
        await testStore.close();
      }
      // Every answer the service gave, to whatever sent the request, kept to its document.
      tap.assertHeld();
    },
  };
}

/**
 * The contract of a service's document, by whether it is reached over https (its console cookie is
 * then __Host- named): the one thing a
 * service's options change in the document (test/http/plugins/openapi.test.ts holds it to that).
 * Writing the document is a third of a service's start, so it is written once a test file.
 */
const contractsBySecureCookie = new Map<boolean, OpenApiContract>();

function contractOf(app: FastifyInstance, secureCookie: boolean): OpenApiContract {
  let contract = contractsBySecureCookie.get(secureCookie);
  if (!contract) {
    contract = OpenApiContract.of(app.swagger() as unknown as OpenApiDocument);
    contractsBySecureCookie.set(secureCookie, contract);
  }
  return contract;
}

/**
 * The contract of the document a service process serves (test/support/process.ts): written by a
 * service built here over a throwaway store, once a test file, as the process would write it.
 */
export async function processContract(secureCookie: boolean): Promise<OpenApiContract> {
  const known = contractsBySecureCookie.get(secureCookie);
  if (known) return known;
  const testStore = await openTestStore('SQLite');
  try {
    const app = await buildApp({
      store: testStore.store,
      auth: { enabled: true, adminKey: TEST_ADMIN_KEY, rateLimit: GENEROUS_RATE_LIMIT },
      keys: TEST_KEYS,
      ...(secureCookie ? { publicUrl: 'https://circulation.example' } : {}),
    });
    try {
      return contractOf(app, secureCookie);
    } finally {
      await app.close();
    }
  } finally {
    await testStore.close();
  }
}

/** The contract of each running test service, by its base address, for the requests sent around the client. */
const taps = new Map<string, ContractTap>();

export interface RawResponse {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  text: string;
}

/**
 * A request through node:http, for what fetch refuses to send: a Host header of our choosing,
 * malformed framing, and the like. The caller checks the answer itself.
 */
export function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { accept: MEDIA_TYPE, authorization: `Bearer ${TEST_ADMIN_KEY}`, ...options.headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          // Answers Node writes itself, before any route (oversized headers, bad framing), are
          // seen by no tap: they are checked here.
          try {
            taps.get(baseUrl)?.contract.check({
              method: options.method ?? 'GET',
              url: options.path,
              status,
              headers: Object.fromEntries(
                Object.entries(response.headers).map(([name, value]) => [
                  name,
                  Array.isArray(value) ? value.join(', ') : value,
                ]),
              ),
              text: options.method === 'HEAD' ? '' : text,
            });
          } catch (error) {
            return reject(error);
          }
          resolve({ status, headers: response.headers, text });
        });
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
