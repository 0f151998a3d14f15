/**
 * The port for newsletter consents (domain/consent.ts). A reader's consents change with their
 * `newsletters` (UserStore's create, import and update, which keep the members in step in the
 * same transaction), and here by what an email provider reports. Every call names the reader, so
 * on Citus each statement routes to the reader's shard.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { ConsentSource, ReportedState, StoredConsent, StoredConsentChange } from '../../domain/consent.js';
import type { LinkSource } from '../../domain/consent-links.js';
import type { IfVersion } from './versions.js';

/** A page by key: newsletter id for consents, change id for their history. */
export interface ConsentPageQuery {
  afterId?: string;
  limit: number;
}

/**
 * What following a link did to the consent (as it is now): `changed` it, left it `unchanged` (an
 * unsubscribe link of a reader off the newsletter already), or nothing because it is `stale`: the
 * consent is no longer at the version a confirmation link names, or no longer confirmable.
 */
export interface LinkOutcome {
  outcome: 'changed' | 'unchanged' | 'stale';
  consent: StoredConsent;
}

export interface ConsentStore {
  /** A page of the reader's consents, by newsletter id; undefined when there is no such user. */
  list(userId: string, query: ConsentPageQuery): Promise<StoredConsent[] | undefined>;
  get(userId: string, newsletterId: string): Promise<StoredConsent | undefined>;
  /** A page of the consent's changes, oldest first; undefined when the reader has no consent for the newsletter. */
  listChanges(
    userId: string,
    newsletterId: string,
    query: ConsentPageQuery,
  ): Promise<StoredConsentChange[] | undefined>;
  /**
   * Records a state an email provider reports (`reportedChange`: CONSENT_SUPPRESSED when it would
   * lift a suppression), with its history entry and event, and the reader's membership (and row
   * version) with it; nothing when the consent is in that state already. Undefined when the reader
   * has no consent for the newsletter.
   */
  report(
    userId: string,
    newsletterId: string,
    state: ReportedState,
    source: ConsentSource,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredConsent | undefined>;
  /**
   * Records what a reader does through a signed link (domain/consent-links.ts, `followedChange`):
   * `confirmation` makes a pending or suppressed consent `subscribed`, provided it is still at
   * `version` (the one the link names); `unsubscribe-link` takes a member or a pending reader off.
   * With its history entry and event, and the reader's membership (and row version) with it.
   * Undefined when the reader has no consent for the newsletter (or is no more).
   */
  followLink(
    userId: string,
    newsletterId: string,
    source: LinkSource,
    audit: AuditContext,
    version?: number,
  ): Promise<LinkOutcome | undefined>;
  /**
   * Records in the audit trail that a confirmation link was issued for the consent (its time and
   * who asked; nothing of the link); false when the reader has no consent for the newsletter.
   */
  recordConfirmationLink(userId: string, newsletterId: string, audit: AuditContext): Promise<boolean>;
}
