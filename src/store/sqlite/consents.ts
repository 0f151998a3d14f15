/**
 * Newsletter consents on SQLite: their reads, what an email provider reports and what a reader does
 * through a signed link, and the writer that every change of a reader's newsletters goes through
 * (users.ts too), inside the transaction of the write that makes it: the consent, its history
 * entry, its audit entry and event, and the membership in user_newsletters, together.
 */
import type { AuditContext } from '../../domain/audit.js';
import { nowInSeconds } from '../../domain/dates.js';
import {
  changesMembership,
  reportedChange,
  type ConsentChange,
  type ConsentSource,
  type ConsentState,
  type ReportedState,
  type StoredConsent,
} from '../../domain/consent.js';
import { CONFIRMATION_LINKS, type LinkSource } from '../../domain/consent-links.js';
import type { ConsentPageQuery, ConsentStore, IfVersion, LinkOutcome } from '../port.js';
import {
  CONSENT_CHANGED,
  consentChangesQuery,
  type ChangedConsent,
  consentQuery,
  consentsQuery,
  followLink,
  toStoredConsent,
  toStoredConsentChange,
} from '../sql/consents.js';
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';

export interface SqliteConsentWriter {
  /** The reader's consents for these newsletters, by newsletter. */
  statesOf(userId: string, newsletterIds: readonly string[]): Map<string, ConsentState>;
  /** Of these newsletters, those with double opt-in. */
  doubleOptInOf(newsletterIds: readonly string[]): Set<string>;
  /** Writes the changes, each with its history entry (and, with `audit`, its audit entry and event) and membership. */
  apply(userId: string, changes: readonly ConsentChange[], source: ConsentSource, audit: AuditContext | null): void;
}

export function sqliteConsentWriter(database: SqliteDatabase): SqliteConsentWriter {
  const { db } = database;
  const states = db.prepare(
    `SELECT newsletter_id, state FROM newsletter_consents
     WHERE user_id = ? AND newsletter_id IN (SELECT value FROM json_each(?))`,
  );
  const optIn = db
    .prepare('SELECT id FROM newsletters WHERE double_opt_in = 1 AND id IN (SELECT value FROM json_each(?))')
    .pluck();
  const upsert = db.prepare(`
    INSERT INTO newsletter_consents (user_id, newsletter_id, state, source, changed_at)
    VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (user_id, newsletter_id) DO UPDATE
      SET state = excluded.state, source = excluded.source, changed_at = excluded.changed_at`);
  const history = db.prepare(`
    INSERT INTO newsletter_consent_changes (user_id, newsletter_id, state, source, actor, changed_at)
    VALUES (?, ?, ?, ?, ?, ?)`);
  const join = db.prepare('INSERT OR IGNORE INTO user_newsletters (user_id, newsletter_id) VALUES (?, ?)');
  const leave = db.prepare('DELETE FROM user_newsletters WHERE user_id = ? AND newsletter_id = ?');

  return {
    statesOf(userId, newsletterIds) {
      if (newsletterIds.length === 0) return new Map();
      const rows = states.all(userId, JSON.stringify(newsletterIds)) as {
        newsletter_id: string;
        state: ConsentState;
      }[];
      return new Map(rows.map((r) => [r.newsletter_id, r.state]));
    },
    doubleOptInOf(newsletterIds) {
      if (newsletterIds.length === 0) return new Set();
      return new Set(optIn.all(JSON.stringify(newsletterIds)) as string[]);
    },
    apply(userId, changes, source, audit) {
      // One instant for the consent and its history entry, which statements apart could see differ.
      const now = nowInSeconds();
      for (const change of changes) {
        const { newsletterId, from, to } = change;
        upsert.run(userId, newsletterId, to, source, now);
        history.run(userId, newsletterId, to, source, audit?.actor ?? null, now);
        if (changesMembership(change)) {
          if (to === 'subscribed') join.run(userId, newsletterId);
          else leave.run(userId, newsletterId);
        }
        if (audit) {
          const entry = { actor: audit.actor, attributes: CONSENT_CHANGED };
          const transition = { oldState: from, newState: to, source };
          database.record(entry, {
            action: from === null ? 'create' : 'update',
            resourceType: 'newsletter-consents',
            resourceId: newsletterId,
            userId,
            consent: transition,
          });
        }
      }
    },
  };
}

export function sqliteConsents(database: SqliteDatabase, writer: SqliteConsentWriter): ConsentStore {
  const { db } = database;
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?').pluck();
  // The reader's newsletters are part of their representation: its version (the ETag) moves with them.
  const touchUser = db.prepare('UPDATE users SET version = version + 1, updated_at = unixepoch() WHERE id = ?');

  const consentOf = (userId: string, newsletterId: string): StoredConsent | undefined => {
    const [row] = database.all(consentQuery(userId, newsletterId));
    return row && toStoredConsent(row);
  };

  async function listConsents(userId: string, query: ConsentPageQuery) {
    return db.transaction(() => {
      if (userExists.get(userId) === undefined) return undefined;
      return database.all(consentsQuery(userId, query)).map(toStoredConsent);
    })();
  }

  async function getConsent(userId: string, newsletterId: string) {
    return consentOf(userId, newsletterId);
  }

  async function listConsentChanges(userId: string, newsletterId: string, query: ConsentPageQuery) {
    return db.transaction(() => {
      if (!consentOf(userId, newsletterId)) return undefined;
      return database.all(consentChangesQuery(userId, newsletterId, query)).map(toStoredConsentChange);
    })();
  }

  /**
   * Changes the consent as `decide` says of it now (nothing when it says null), in one immediate
   * transaction; undefined when there is no such consent.
   */
  function changeConsent(
    userId: string,
    newsletterId: string,
    source: ConsentSource,
    audit: AuditContext,
    decide: (current: StoredConsent) => ConsentChange | null,
  ): ChangedConsent {
    return db
      .transaction(() => {
        const current = consentOf(userId, newsletterId);
        if (!current) return undefined;
        const change = decide(current);
        if (!change) return { consent: current, changed: false };
        writer.apply(userId, [change], source, audit);
        if (changesMembership(change)) touchUser.run(userId);
        return { consent: consentOf(userId, newsletterId) as StoredConsent, changed: true };
      })
      .immediate();
  }

  async function reportConsent(
    userId: string,
    newsletterId: string,
    state: ReportedState,
    source: ConsentSource,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredConsent | undefined> {
    return changeConsent(userId, newsletterId, source, audit, (current) => {
      requireVersion(current.version, ifVersion);
      return reportedChange(newsletterId, current.state, state);
    })?.consent;
  }

  async function followConsentLink(
    userId: string,
    newsletterId: string,
    source: LinkSource,
    audit: AuditContext,
    version?: number,
  ): Promise<LinkOutcome | undefined> {
    return followLink(
      source,
      version,
      () => getConsent(userId, newsletterId),
      (decide) => changeConsent(userId, newsletterId, source, audit, decide),
    );
  }

  async function recordConfirmationLink(userId: string, newsletterId: string, audit: AuditContext) {
    return db.transaction(() => {
      if (!consentOf(userId, newsletterId)) return false;
      database.record(audit, { action: 'create', resourceType: CONFIRMATION_LINKS, resourceId: newsletterId, userId });
      return true;
    })();
  }

  return {
    list: listConsents,
    get: getConsent,
    listChanges: listConsentChanges,
    report: reportConsent,
    followLink: followConsentLink,
    recordConfirmationLink,
  };
}
