/**
 * Newsletter consent: for each newsletter a reader ever had, a record of where their consent
 * stands (`state`), how it came to (`source`) and when, with every change kept as its history.
 * A reader's `newsletters` are the newsletters whose consent is `subscribed`; the rest are kept
 * as proof and as suppression.
 *
 * `bounced` and `complained` suppress: an email provider reported that the address cannot or
 * must not be mailed, so no `add` and no import puts the reader back (CONSENT_SUPPRESSED) until
 * the reader confirms again (a change from source `confirmation`, which is the one way out).
 * A newsletter with `doubleOptIn` puts an added reader in `pending`, not yet a member, until they
 * confirm.
 */
import { Type } from '@sinclair/typebox';
import { failures, type Problem } from './failures.js';
import { StringEnum } from './schema.js';

export const NEWSLETTER_CONSENTS = 'newsletter-consents';
export const NEWSLETTER_CONSENT_CHANGES = 'newsletter-consent-changes';

export const CONSENT_STATES = ['pending', 'subscribed', 'unsubscribed', 'bounced', 'complained'] as const;
export type ConsentState = (typeof CONSENT_STATES)[number];

export const CONSENT_SOURCES = [
  'api',
  'console',
  'import',
  'confirmation',
  'unsubscribe-link',
  'email-provider',
] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/** Where a reader's `newsletters: {add, remove}` came from: a program, the console, or an import. */
export type MembershipSource = Extract<ConsentSource, 'api' | 'console' | 'import'>;

/** What an email provider (or whoever holds a `write` credential) may report of a consent. */
export const REPORTED_STATES = ['unsubscribed', 'bounced', 'complained'] as const;
export type ReportedState = (typeof REPORTED_STATES)[number];

const SUPPRESSING: ReadonlySet<ConsentState> = new Set(['bounced', 'complained']);

/** Whether the state keeps the reader off the newsletter whatever an add or an import says. */
export function isSuppressed(state: ConsentState | null | undefined): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the set has neither null nor undefined either
  if (state === null || state === undefined) return false;
  return SUPPRESSING.has(state);
}

/** A consent as stored: the reader's, for one newsletter. */
export interface StoredConsent {
  userId: string;
  newsletterId: string;
  state: ConsentState;
  source: ConsentSource;
  /** When the state last changed, in epoch seconds. */
  changedAt: number;
  /** Its version (the ETag): the id of its latest change, which every change makes anew. */
  version: number;
}

/** One change of a consent, as its history keeps it. */
export interface StoredConsentChange {
  id: string;
  userId: string;
  newsletterId: string;
  state: ConsentState;
  source: ConsentSource;
  /** Who made it, as the audit trail names actors (`domain/audit.ts`); null when nobody is known. */
  actor: string | null;
  changedAt: number;
}

/** A change of one consent: from its state (null: the reader never had the newsletter) to another. */
export interface ConsentChange {
  newsletterId: string;
  from: ConsentState | null;
  to: ConsentState;
}

/** What the audit entry (and the event) of a consent change says of it. */
export interface ConsentTransition {
  oldState: ConsentState | null;
  newState: ConsentState;
  source: ConsentSource;
}

export const ConsentAttributes = Type.Object({
  state: StringEnum(CONSENT_STATES, {
    description:
      'pending: added under doubleOptIn, not yet a member; subscribed: a member; bounced, complained: ' +
      'suppressed (an add is refused with CONSENT_SUPPRESSED) until the reader confirms again.',
  }),
  source: StringEnum(CONSENT_SOURCES, { description: 'How the state came to be.' }),
  changedAt: Type.String({ format: 'date-time', description: 'When the state last changed.' }),
});

export const ConsentUpdateAttributes = Type.Object(
  {
    state: StringEnum(REPORTED_STATES, {
      description:
        'What the email provider reports: bounced or complained suppress the address for this newsletter; ' +
        'unsubscribed takes the reader off it (refused with CONSENT_SUPPRESSED while suppressed).',
    }),
  },
  { additionalProperties: false },
);

export const ConsentChangeAttributes = Type.Object({
  state: StringEnum(CONSENT_STATES),
  source: StringEnum(CONSENT_SOURCES),
  changedAt: Type.String({ format: 'date-time' }),
});

export const ConsentTransitionSchema = Type.Object(
  {
    oldState: Type.Union([StringEnum(CONSENT_STATES), Type.Null()], {
      description: 'null when the reader never had the newsletter before.',
    }),
    newState: StringEnum(CONSENT_STATES),
    source: StringEnum(CONSENT_SOURCES),
  },
  { description: 'Of a newsletter_consent.changed event: the state left, the state reached, and how.' },
);

/**
 * The consent changes of adding a reader to newsletters and taking them off others, given their
 * consents now (`current`, by newsletter) and the newsletters with double opt-in among those
 * added. Added: `subscribed` (`pending` under double opt-in), unless they are a member already or
 * pending still under double opt-in; a suppressed one is refused (CONSENT_SUPPRESSED, at
 * `pointerOf` its first place in `add`). Removed: a member or a pending reader becomes
 * `unsubscribed`; a suppressed or unknown one is left as it is (suppression is not lifted by leaving).
 */
export function membershipChanges(
  current: ReadonlyMap<string, ConsentState>,
  add: readonly string[],
  remove: readonly string[],
  doubleOptIn: ReadonlySet<string>,
  pointerOf: (index: number) => string,
): ConsentChange[] {
  const changes: ConsentChange[] = [];
  const suppressed: Problem[] = [];
  const seen = new Set<string>();
  add.forEach((newsletterId, index) => {
    if (seen.has(newsletterId)) return;
    seen.add(newsletterId);
    const from = current.get(newsletterId) ?? null;
    if (isSuppressed(from)) {
      suppressed.push(suppression(newsletterId, from as ConsentState, pointerOf(index)));
      return;
    }
    const to: ConsentState = doubleOptIn.has(newsletterId) ? 'pending' : 'subscribed';
    if (from === 'subscribed' || from === to) return;
    changes.push({ newsletterId, from, to });
  });
  if (suppressed.length > 0) throw failures.consentSuppressed(suppressed);
  for (const newsletterId of new Set(remove)) {
    const from = current.get(newsletterId) ?? null;
    if (from === 'subscribed' || from === 'pending') changes.push({ newsletterId, from, to: 'unsubscribed' });
  }
  return changes;
}

/**
 * The change an email provider's report makes of a consent now at `from`: none when it says what
 * the record says already; `unsubscribed` of a suppressed consent is refused, since it would lift
 * the suppression that only the reader's confirmation may lift.
 */
export function reportedChange(
  newsletterId: string,
  from: ConsentState,
  reported: ReportedState,
): ConsentChange | null {
  if (from === reported) return null;
  if (reported === 'unsubscribed' && isSuppressed(from)) {
    throw failures.consentSuppressed([suppression(newsletterId, from, '/data/attributes/state')]);
  }
  return { newsletterId, from, to: reported };
}

/** The problem of a newsletter the reader is suppressed for, at `pointer`: what CONSENT_SUPPRESSED says of it. */
export function suppression(newsletterId: string, state: ConsentState, pointer: string): Problem {
  return {
    pointer,
    detail: `newsletter ${newsletterId} is suppressed for this reader (${state}): only their confirmation puts them back`,
  };
}

/** Whether a change moves the reader onto or off the newsletter's members (their `newsletters`). */
export function changesMembership(change: ConsentChange): boolean {
  return (change.from === 'subscribed') !== (change.to === 'subscribed');
}

export function toConsentAttributes(consent: StoredConsent, format: (seconds: number) => string) {
  return { state: consent.state, source: consent.source, changedAt: format(consent.changedAt) };
}
