/**
 * Staff for the tests: an account opened through /staff (as the admin of the test service), and a
 * console session signed in through /staff-sessions, with a client that presents its cookie (and
 * its CSRF token on changes), as the console in a browser does.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import type { Role } from '../../src/domain/staff.js';
import { uniqueEmail } from './fixtures.js';
import type { Client, RequestOptions, Response, Service } from './service.js';

export const STAFF_PASSWORD = 'staff password that is long';

export interface TestStaff {
  id: string;
  email: string;
  password: string;
}

export async function createStaff(admin: Client, role: Role, name = `Agent ${role}`): Promise<TestStaff> {
  const email = uniqueEmail('staff.example.com');
  const response = await admin.post('/staff', {
    data: { type: 'staff', attributes: { email, name, role, password: STAFF_PASSWORD } },
  });
  assert.equal(response.status, 201, response.text);
  return { id: response.body.data.id, email, password: STAFF_PASSWORD };
}

export function staffSignIn(client: Client, email: string, password: string): Promise<Response> {
  return client.as(null).post('/staff-sessions', {
    data: { type: 'staff-sessions', attributes: { email, password } },
  });
}

/** A signed-in session: its cookie (name=value), CSRF token, and a client presenting both. */
export interface Session {
  cookie: string;
  setCookie: string;
  csrfToken: string;
  client: SessionClient;
}

export async function signInSession(client: Client, staff: TestStaff): Promise<Session> {
  const response = await staffSignIn(client, staff.email, staff.password);
  assert.equal(response.status, 201, response.text);
  // The session's cookie; the known-device cookie (use-cases/staff/devices.ts) comes beside it.
  const setCookie = response.headers.getSetCookie().find((c) => /^(__Host-)?circulation_session=/.test(c)) ?? '';
  const cookie = setCookie.split(';')[0] as string;
  const csrfToken = response.body.data.attributes.csrfToken as string;
  return { cookie, setCookie, csrfToken, client: new SessionClient(client.as(null), cookie, csrfToken) };
}

/** Requests with the session cookie, and the CSRF token unless `csrf` is false. */
export class SessionClient {
  constructor(
    readonly client: Client,
    readonly cookie: string,
    readonly csrfToken: string,
  ) {}

  request(method: string, path: string, options: RequestOptions & { csrf?: boolean } = {}): Promise<Response> {
    const { csrf = true, ...rest } = options;
    return this.client.request(method, path, {
      ...rest,
      headers: { cookie: this.cookie, ...(csrf ? { 'x-csrf-token': this.csrfToken } : {}), ...rest.headers },
    });
  }
  get(path: string) {
    return this.request('GET', path);
  }
  post(path: string, body: unknown, options: RequestOptions & { csrf?: boolean } = {}) {
    return this.request('POST', path, { ...options, body });
  }
  patch(path: string, body: unknown, options: RequestOptions & { csrf?: boolean } = {}) {
    return this.request('PATCH', path, { ...options, body });
  }
  delete(path: string, options: RequestOptions & { csrf?: boolean } = {}) {
    return this.request('DELETE', path, options);
  }
}

/**
 * Moves the staff member's sessions' last-seen time back by `seconds`, as if that long had passed
 * without a request, behind the service's back (SQLite through a connection of its own).
 */
export async function ageSessions(service: Service, staffId: string, seconds: number): Promise<void> {
  await runBehindTheService(service, 'UPDATE staff_sessions SET last_seen_at = last_seen_at - ? WHERE staff_id = ?', [
    seconds,
    staffId,
  ]);
}

/**
 * Moves the staff member's sessions' start back by `seconds`, as if they had been signed in that
 * much earlier, leaving their last-seen time as it is (in use until now).
 */
export async function ageSessionStarts(service: Service, staffId: string, seconds: number): Promise<void> {
  await runBehindTheService(service, 'UPDATE staff_sessions SET created_at = created_at - ? WHERE staff_id = ?', [
    seconds,
    staffId,
  ]);
}

async function runBehindTheService(service: Service, statement: string, params: unknown[]): Promise<void> {
  if (service.kind !== 'SQLite') {
    await service.sql(statement, params);
    return;
  }
  const db = new Database(service.databaseUrl.slice('sqlite:'.length));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}
