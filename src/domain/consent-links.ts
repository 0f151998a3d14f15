/**
 * The links a reader follows without a credential, from a mail the publisher sends: one confirms a
 * newsletter (double opt-in, or lifting a suppression), one takes them off it (RFC 8058's one-click
 * unsubscribe). Nothing of them is stored: each carries an HMAC-SHA256, under the link key
 * (secrets/service-keys.ts), of what it acts on, and is checked by recomputing it.
 *
 * A confirmation link is single use without a table: it names the consent's version (the id of its
 * latest change, which every change makes anew), so once the consent changes, by this link or any
 * other way, the link no longer matches; and it expires. An unsubscribe link names only the reader
 * and the newsletter, and works for as long as the reader exists (erasure removes the consent).
 *
 * Tokens: a confirmation's is `<version>.<expiresAt>.<mac>`, an unsubscribe link's is `<mac>`, the
 * MAC in base64url (43 characters). A token is checked for its shape, bounded, before any HMAC.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ConsentChange, ConsentSource, ConsentState } from './consent.js';

/** The sources of the changes links make. */
export type LinkSource = Extract<ConsentSource, 'confirmation' | 'unsubscribe-link'>;

/** The actor the audit trail and a consent's history name for a change made through a link. */
export const LINK_ACTOR = 'reader-link';

/**
 * The audit trail's resource type for a confirmation link issued (its id the newsletter's): when
 * it was asked for is what the reader's data export can say of it, since the link is not kept.
 */
export const CONFIRMATION_LINKS = 'confirmation-links';

/** How long a confirmation link works (CONFIRMATION_TTL_HOURS), by default. */
export const DEFAULT_CONFIRMATION_TTL_HOURS = 72;

/** The longest token either link carries; longer is refused before anything else is read of it. */
export const MAX_LINK_TOKEN_LENGTH = 80;

/**
 * The states a confirmation link may be issued for, and that confirming makes `subscribed`: a
 * pending reader under double opt-in, and a suppressed one (bounced, complained), whose
 * confirmation is the one way back. A member has nothing to confirm, and one who left comes back by
 * an `add` (which under double opt-in asks for a confirmation again).
 */
const CONFIRMABLE: ReadonlySet<ConsentState> = new Set(['pending', 'bounced', 'complained']);

export function isConfirmable(state: ConsentState): boolean {
  return CONFIRMABLE.has(state);
}

/** What a confirmation link names of a consent. */
export interface ConfirmationClaim {
  userId: string;
  newsletterId: string;
  /** The consent's version when the link was issued. */
  version: number;
  /** When the link stops working, in epoch seconds. */
  expiresAt: number;
}

// Stryker disable next-line Regex: macMatches refuses any length but 43, so an unanchored pattern refuses the same tokens
const MAC = /^[A-Za-z0-9_-]{43}$/;
const CONFIRMATION_TOKEN = /^([1-9][0-9]{0,14})\.([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})$/;

// NUL separates the fields: no id holds one (catalogue ids refuse it, user ids are digits).
function mac(key: Buffer, fields: readonly (string | number)[]): Buffer {
  // Stryker disable next-line StringLiteral: an empty encoding is Node's default, utf8
  return createHmac('sha256', key).update(fields.join('\0'), 'utf8').digest();
}

/**
 * Whether the presented MAC is the expected one, compared as text in constant time: base64url of
 * 32 bytes leaves two bits of its last character unused, which decoding would ignore, so a
 * presented MAC is compared as written, never decoded.
 */
function macMatches(expected: Buffer, presented: string): boolean {
  // Both are ASCII (base64url, and a token its pattern let through), the same bytes in latin1 and utf8.
  // Stryker disable next-line StringLiteral: see above
  const wanted = Buffer.from(expected.toString('base64url'), 'latin1');
  // Stryker disable next-line StringLiteral: see above
  const given = Buffer.from(presented, 'latin1');
  // Stryker disable next-line ConditionalExpression: both callers' patterns let through 43 characters only, as many as wanted
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export function confirmationToken(key: Buffer, claim: ConfirmationClaim): string {
  const { userId, newsletterId, version, expiresAt } = claim;
  const signature = mac(key, ['confirm', userId, newsletterId, version, expiresAt]).toString('base64url');
  return `${version}.${expiresAt}.${signature}`;
}

/**
 * What a confirmation token presented for this reader and newsletter names, or undefined when it
 * was not issued for them under this key (forged, altered, another reader's or newsletter's, or an
 * unsubscribe link's). Expiry and version are the caller's to compare.
 */
export function readConfirmationToken(
  key: Buffer,
  userId: string,
  newsletterId: string,
  token: string,
): ConfirmationClaim | undefined {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bound before the pattern, which refuses such lengths too
  if (token.length > MAX_LINK_TOKEN_LENGTH) return undefined;
  const match = CONFIRMATION_TOKEN.exec(token);
  if (!match) return undefined;
  const version = Number(match[1]);
  const expiresAt = Number(match[2]);
  const expected = mac(key, ['confirm', userId, newsletterId, version, expiresAt]);
  if (!macMatches(expected, match[3] as string)) return undefined;
  return { userId, newsletterId, version, expiresAt };
}

export function unsubscribeToken(key: Buffer, userId: string, newsletterId: string): string {
  return mac(key, ['unsubscribe', userId, newsletterId]).toString('base64url');
}

/** Whether an unsubscribe token was issued for this reader and newsletter under this key. */
export function unsubscribeTokenMatches(key: Buffer, userId: string, newsletterId: string, token: string): boolean {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a bound before the pattern, which refuses such lengths too
  if (token.length > MAX_LINK_TOKEN_LENGTH) return false;
  if (!MAC.test(token)) return false;
  return macMatches(mac(key, ['unsubscribe', userId, newsletterId]), token);
}

/** The change following a link of `source` makes of a consent at `from`, if any. */
export function linkedChange(source: LinkSource, newsletterId: string, from: ConsentState): ConsentChange | null {
  return source === 'confirmation' ? confirmedChange(newsletterId, from) : unsubscribedChange(newsletterId, from);
}

/**
 * The change following a link makes of a consent as it is now: none when a confirmation link names
 * a version the consent no longer has (`version`, undefined for an unsubscribe link, which names none).
 */
export function followedChange(
  source: LinkSource,
  consent: { newsletterId: string; state: ConsentState; version: number },
  version?: number,
): ConsentChange | null {
  if (version !== undefined && consent.version !== version) return null;
  return linkedChange(source, consent.newsletterId, consent.state);
}

/** What following a link did: a confirmation link that changes nothing is stale (used, or overtaken). */
export function linkOutcome(source: LinkSource, changed: boolean): 'changed' | 'unchanged' | 'stale' {
  if (changed) return 'changed';
  return source === 'confirmation' ? 'stale' : 'unchanged';
}

/** The change confirming makes of a consent at `from`: `subscribed`, or none when it is not confirmable. */
export function confirmedChange(newsletterId: string, from: ConsentState): ConsentChange | null {
  return isConfirmable(from) ? { newsletterId, from, to: 'subscribed' } : null;
}

/**
 * The change an unsubscribe link makes of a consent at `from`: a member or a pending reader becomes
 * `unsubscribed`; one who left already, or is suppressed (who gets no mail either way, and whose
 * suppression only a confirmation lifts), is left as they are.
 */
export function unsubscribedChange(newsletterId: string, from: ConsentState): ConsentChange | null {
  return from === 'subscribed' || from === 'pending' ? { newsletterId, from, to: 'unsubscribed' } : null;
}

/** The headers a mailer puts in a newsletter's message for one-click unsubscribing (RFC 2369, RFC 8058). */
export function listUnsubscribeHeaders(url: string) {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } as const;
}
