/**
 * What the service does with the links a reader follows from a mail (domain/consent-links.ts):
 * issues a consent's confirmation link, and tells whether one followed may still confirm. The
 * routes render what these answer: an error document or a page.
 */
import type { AuditContext } from '../domain/audit.js';
import type { ConsentState } from '../domain/consent.js';
import { confirmationToken, isConfirmable, type ConfirmationClaim } from '../domain/consent-links.js';
import type { Store } from '../store/port.js';

/** A confirmation link issued: its token and when it expires; or why there is none. */
export type IssuedConfirmation =
  | { issued: true; token: string; expiresAt: number }
  | { issued: false; consent: 'none' }
  | { issued: false; consent: 'not-confirmable'; state: ConsentState };

/**
 * A token that confirms the reader's consent to the newsletter at its version now, until
 * `now` + `ttlSeconds`; recorded in the audit trail (nothing of the token). None without the
 * consent (or the reader, erased meanwhile), nor for a consent a link does not confirm.
 */
export async function issueConfirmationLink(
  store: Store,
  key: Buffer,
  { userId, newsletterId }: { userId: string; newsletterId: string },
  { now, ttlSeconds }: { now: number; ttlSeconds: number },
  audit: AuditContext,
): Promise<IssuedConfirmation> {
  const consent = await store.consents.get(userId, newsletterId);
  if (!consent) return { issued: false, consent: 'none' };
  if (!isConfirmable(consent.state)) return { issued: false, consent: 'not-confirmable', state: consent.state };
  const expiresAt = now + ttlSeconds;
  const token = confirmationToken(key, { userId, newsletterId, version: consent.version, expiresAt });
  // Erased since it was read: no link for a reader who is no more.
  if (!(await store.consents.recordConfirmationLink(userId, newsletterId, audit)))
    return { issued: false, consent: 'none' };
  return { issued: true, token, expiresAt };
}

/**
 * What a confirmation link's page shows: `unknown` without the consent, `used` when it changed
 * since the link was issued (or no longer wants confirming), `confirmable` otherwise.
 */
export async function confirmationState(
  store: Store,
  claim: Pick<ConfirmationClaim, 'userId' | 'newsletterId' | 'version'>,
): Promise<'unknown' | 'used' | 'confirmable'> {
  const consent = await store.consents.get(claim.userId, claim.newsletterId);
  if (!consent) return 'unknown';
  if (consent.version !== claim.version || !isConfirmable(consent.state)) return 'used';
  return 'confirmable';
}
