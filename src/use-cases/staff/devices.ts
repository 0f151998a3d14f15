/**
 * Known devices: a browser in which a staff member has signed in to the console carries a cookie
 * that says so, signed with the service's device key (secrets/service-keys.ts) for that email, and
 * checked without a store read. The sign-in budget keeps places for such devices (SignInBudget),
 * so that a flood of sign-ins from unknown clients, however many networks it comes from, cannot
 * keep the staff out. The cookie is no credential: it only lets its sign-in be checked at all,
 * the password is checked as ever. It holds a random id, when it was issued and a MAC over both
 * and the email (which it does not hold): `<id>.<issued at>.<mac>`, `HttpOnly; SameSite=Strict`.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleSettings } from './sessions.js';

const NAME = 'circulation_device';
/** How long a device stays known after its last sign-in there. */
export const KNOWN_DEVICE_DAYS = 90;
const MAX_AGE_SECONDS = KNOWN_DEVICE_DAYS * 86_400;
const VALUE = /^([A-Za-z0-9_-]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

export function deviceCookieName(settings: Pick<ConsoleSettings, 'secure'>): string {
  return settings.secure ? `__Host-${NAME}` : NAME;
}

function mac(key: Buffer, id: string, issuedAt: number, email: string): string {
  return createHmac('sha256', key).update(`${id}\0${issuedAt}\0${email.toLowerCase()}`).digest('base64url');
}

/** The Set-Cookie header that makes this browser a known device of `email`, from `now` on. */
export function deviceCookie(
  settings: Pick<ConsoleSettings, 'secure'>,
  key: Buffer,
  email: string,
  now: number,
): string {
  const id = randomBytes(16).toString('base64url');
  const value = `${id}.${now}.${mac(key, id, now, email)}`;
  return `${deviceCookieName(settings)}=${value}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict${settings.secure ? '; Secure' : ''}`;
}

/** Whether the Cookie header carries a device cookie this service signed for `email`, issued within its lifetime. */
export function isKnownDevice(
  header: string | undefined,
  settings: Pick<ConsoleSettings, 'secure'>,
  key: Buffer,
  email: string,
  now: number,
): boolean {
  if (!header) return false;
  const name = deviceCookieName(settings);
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    const m = VALUE.exec(part.slice(eq + 1).trim());
    if (!m) return false;
    const [, id, issued, presented] = m as unknown as [string, string, string, string];
    const issuedAt = Number(issued);
    if (issuedAt > now + 60 || now - issuedAt > MAX_AGE_SECONDS) return false;
    const expected = Buffer.from(mac(key, id, issuedAt, email), 'base64url');
    const given = Buffer.from(presented, 'base64url');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
  return false;
}
