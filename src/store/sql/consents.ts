/**
 * Newsletter consents as every adapter keeps them (migration 30): each reader's consent per
 * newsletter, its history, and the reads of both, by the reader's key first (one shard on Citus).
 * A reader's members are user_newsletters, which every consent change keeps in step.
 */
import type {
  ConsentChange,
  ConsentSource,
  ConsentState,
  StoredConsent,
  StoredConsentChange,
} from '../../domain/consent.js';
import { followedChange, linkOutcome, type LinkSource } from '../../domain/consent-links.js';
import type { LinkOutcome } from '../ports/consents.js';
import { raw, sql, where, type Sql } from './builder.js';
import { seconds, type Row } from './rows.js';

// The version is the latest change's id, read from the history's index (user, newsletter, id).
export const CONSENT_COLUMNS = `user_id, newsletter_id, state, source, changed_at,
  (SELECT max(h.id) FROM newsletter_consent_changes h
   WHERE h.user_id = newsletter_consents.user_id AND h.newsletter_id = newsletter_consents.newsletter_id) AS version`;
export const CONSENT_CHANGE_COLUMNS = 'id, user_id, newsletter_id, state, source, actor, changed_at';

/** The attributes a consent change's audit entry names. */
export const CONSENT_CHANGED = ['changedAt', 'source', 'state'] as const;

export function toStoredConsent(row: Row): StoredConsent {
  return {
    userId: String(row.user_id),
    newsletterId: row.newsletter_id as string,
    state: row.state as ConsentState,
    source: row.source as ConsentSource,
    changedAt: seconds(row.changed_at),
    version: Number(row.version),
  };
}

export function toStoredConsentChange(row: Row): StoredConsentChange {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    newsletterId: row.newsletter_id as string,
    state: row.state as ConsentState,
    source: row.source as ConsentSource,
    actor: (row.actor as string | null) ?? null,
    changedAt: seconds(row.changed_at),
  };
}

/** A page of a reader's consents, by newsletter id (the primary key's order). */
export function consentsQuery(userId: string, query: { afterId?: string; limit: number }): Sql {
  const conditions = [sql`user_id = ${userId}`];
  if (query.afterId !== undefined) conditions.push(sql`newsletter_id > ${query.afterId}`);
  return sql`SELECT ${raw(CONSENT_COLUMNS)} FROM newsletter_consents ${where(conditions)}
    ORDER BY newsletter_id LIMIT ${query.limit}`;
}

export function consentQuery(userId: string, newsletterId: string): Sql {
  return sql`SELECT ${raw(CONSENT_COLUMNS)} FROM newsletter_consents
    WHERE user_id = ${userId} AND newsletter_id = ${newsletterId}`;
}

/** A page of one consent's changes, oldest first (newsletter_consent_changes_consent). */
export function consentChangesQuery(
  userId: string,
  newsletterId: string,
  query: { afterId?: string; limit: number },
): Sql {
  const conditions = [sql`user_id = ${userId}`, sql`newsletter_id = ${newsletterId}`];
  if (query.afterId !== undefined) conditions.push(sql`id > ${query.afterId}`);
  return sql`SELECT ${raw(CONSENT_CHANGE_COLUMNS)} FROM newsletter_consent_changes ${where(conditions)}
    ORDER BY id LIMIT ${query.limit}`;
}

/** What an adapter's consent change gives: the consent as it is after, and whether it changed. */
export type ChangedConsent = { consent: StoredConsent; changed: boolean } | undefined;

/**
 * Following a link (ConsentStore.followLink), given the adapter's read of the consent and
 * its change of it (which decides again under its lock). Most links followed change nothing (a
 * one-click POST repeated, a used confirmation): the read, without a lock, answers them.
 */
export async function followLink(
  source: LinkSource,
  version: number | undefined,
  read: () => Promise<StoredConsent | undefined>,
  change: (decide: (current: StoredConsent) => ConsentChange | null) => ChangedConsent | Promise<ChangedConsent>,
): Promise<LinkOutcome | undefined> {
  const decide = (current: StoredConsent) => followedChange(source, current, version);
  const seen = await read();
  if (!seen) return undefined;
  const result = decide(seen) === null ? { consent: seen, changed: false } : await change(decide);
  return result && { outcome: linkOutcome(source, result.changed), consent: result.consent };
}
