/**
 * Newsletter consents on PostgreSQL: their reads, what an email provider reports and what a reader
 * does through a signed link, and the writes that every change of a reader's newsletters goes
 * through (users.ts too), on the connection of the write that makes it: the consents, their
 * history entries, audit entries and events, and the memberships in user_newsletters, in one
 * statement. Every statement names the reader by its id, so on Citus it routes to the reader's
 * shard.
 */
import { requireVersion } from '../ports/versions.js';
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
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
import { eventTypeOf } from '../../domain/events.js';
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
import type { Row } from '../sql/rows.js';
import { auditInsert, preparedName, rowsOn, type PostgresDatabase } from './database.js';
import type { KnownUsers } from './known-users.js';

const CHANGED = eventTypeOf('newsletter-consents', 'update');

/** The parameters (SQL) the changes are read from; `perUser`: `users` is one id for them all. */
interface ChangeParameters {
  users: string;
  ids: string;
  olds: string;
  states: string;
  perUser: boolean;
}

/**
 * The changes as rows (user_id, newsletter_id, old_state, state, n), from parameters: $users
 * (bigint[], or one bigint for all), $ids, $olds (text[], or NULL for none) and $states. Each part
 * of a statement reads them from unnest itself, as the other writes of a user's rows do: on Citus
 * a part that names the user's id by a parameter routes to the user's shard, where a shared CTE
 * would be a result read on the coordinator first.
 */
function changeRows({ users, ids, olds, states, perUser }: ChangeParameters): string {
  const user = perUser ? `${users}::bigint AS user_id, ` : '';
  const userColumn = perUser ? '' : 'user_id, ';
  const userArray = perUser ? '' : `${users}::bigint[], `;
  return `(SELECT ${user}* FROM unnest(${userArray}${ids}::text[], ${olds}::text[], ${states}::text[])
    WITH ORDINALITY AS x (${userColumn}newsletter_id, old_state, state, n)) AS x`;
}

/** The audit entries of the changes `rows` reads, in their order; $source, $actor and $attributes as named. */
function consentAudit(
  rows: string,
  { source, actor, attributes }: { source: string; actor: string; attributes: string },
): string {
  return `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type, consent_change)
    SELECT ${actor}, CASE WHEN old_state IS NULL THEN 'create' ELSE 'update' END, 'newsletter-consents',
      newsletter_id, user_id::text, ${attributes}, '${CHANGED}',
      jsonb_build_object('oldState', old_state, 'newState', state, 'source', ${source})
    FROM ${rows} ORDER BY n`;
}

/** The reader's consents for these newsletters, by newsletter. */
export async function consentStatesOn(
  client: pg.ClientBase,
  userId: string,
  newsletterIds: readonly string[],
): Promise<Map<string, ConsentState>> {
  if (newsletterIds.length === 0) return new Map();
  const { rows } = await client.query<{ newsletter_id: string; state: ConsentState }>(
    'SELECT newsletter_id, state FROM newsletter_consents WHERE user_id = $1 AND newsletter_id = ANY($2::text[])',
    [userId, [...newsletterIds]],
  );
  return new Map(rows.map((r) => [r.newsletter_id, r.state]));
}

/** Of these newsletters, those with double opt-in. */
export async function doubleOptInOn(client: pg.ClientBase, newsletterIds: readonly string[]): Promise<Set<string>> {
  if (newsletterIds.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM newsletters WHERE double_opt_in AND id = ANY($1::text[])',
    [[...new Set(newsletterIds)]],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Writes one reader's consent changes, each with its history entry (and, with `audit`, its audit
 * entry and event) and membership, in one statement.
 */
export async function applyConsentChanges(
  client: pg.ClientBase,
  userId: string,
  changes: readonly ConsentChange[],
  source: ConsentSource,
  audit: AuditContext | null,
): Promise<void> {
  if (changes.length === 0) return;
  const leaving = changes.filter((c) => changesMembership(c) && c.to !== 'subscribed').map((c) => c.newsletterId);
  const params: unknown[] = [
    userId,
    changes.map((c) => c.newsletterId),
    changes.map((c) => c.from),
    changes.map((c) => c.to),
    source,
    audit?.actor ?? null,
    leaving,
  ];
  const rows = changeRows({ users: '$1', ids: '$2', olds: '$3', states: '$4', perUser: true });
  let record = '';
  if (audit) {
    params.push(CONSENT_CHANGED);
    record = `, a AS (${consentAudit(rows, { source: '$5::text', actor: '$6::text', attributes: '$8::text[]' })})`;
  }
  await client.query(
    `WITH c AS (
       INSERT INTO newsletter_consents (user_id, newsletter_id, state, source, changed_at)
       SELECT user_id, newsletter_id, state, $5::text, now() FROM ${rows}
       ON CONFLICT (user_id, newsletter_id) DO UPDATE
         SET state = excluded.state, source = excluded.source, changed_at = excluded.changed_at
     ), h AS (
       INSERT INTO newsletter_consent_changes (user_id, newsletter_id, state, source, actor, changed_at)
       SELECT user_id, newsletter_id, state, $5::text, $6::text, now() FROM ${rows} ORDER BY n
     ), j AS (
       INSERT INTO user_newsletters (user_id, newsletter_id)
       SELECT user_id, newsletter_id FROM ${rows} WHERE state = 'subscribed' ON CONFLICT DO NOTHING
     ), l AS (
       DELETE FROM user_newsletters WHERE user_id = $1::bigint AND newsletter_id = ANY($7::text[])
     )${record}
     SELECT 1`,
    params,
  );
}

/**
 * The first consents of readers just made by an import (none had any): each with its history
 * entry (and, with `audit`, its audit entry and event) and membership, in one statement for the batch.
 */
export async function applyImportedConsents(
  client: pg.ClientBase,
  entries: readonly { userId: string; change: ConsentChange }[],
  audit: AuditContext | null,
): Promise<void> {
  if (entries.length === 0) return;
  const users = entries.map((e) => e.userId);
  const ids = entries.map((e) => e.change.newsletterId);
  const states = entries.map((e) => e.change.to);
  const rows = changeRows({ users: '$1', ids: '$2', olds: 'NULL', states: '$3', perUser: false });
  // A statement per table, each INSERT … SELECT from unnest, as the import writes its users.
  await client.query(
    `INSERT INTO newsletter_consents (user_id, newsletter_id, state, source, changed_at)
     SELECT user_id, newsletter_id, state, 'import', now() FROM ${rows}`,
    [users, ids, states],
  );
  await client.query(
    `INSERT INTO newsletter_consent_changes (user_id, newsletter_id, state, source, actor, changed_at)
     SELECT user_id, newsletter_id, state, 'import', $4::text, now() FROM ${rows} ORDER BY n`,
    [users, ids, states, audit?.actor ?? null],
  );
  await client.query(
    `INSERT INTO user_newsletters (user_id, newsletter_id)
     SELECT user_id, newsletter_id FROM ${rows} WHERE state = 'subscribed' ON CONFLICT DO NOTHING`,
    [users, ids, states],
  );
  if (audit) {
    await client.query(consentAudit(rows, { source: "'import'", actor: '$4::text', attributes: '$5::text[]' }), [
      users,
      ids,
      states,
      audit.actor,
      CONSENT_CHANGED,
    ]);
  }
}

export function postgresConsents(database: PostgresDatabase, users: Pick<KnownUsers, 'exists'>): ConsentStore {
  // A site's preference page reads a reader's consents on every visit: the statement is prepared
  // (its text differs only by whether a page starts after a newsletter), and whether the reader
  // exists is asked only when no consent came, a consent's user being there by its foreign key.
  async function listConsents(userId: string, query: ConsentPageQuery) {
    const { text, values } = consentsQuery(userId, query).render('postgres');
    const rows = await database.preparedRows(preparedName('consents', text), text, values);
    if (rows.length === 0 && !(await users.exists(userId))) return undefined;
    return rows.map(toStoredConsent);
  }

  async function getConsent(userId: string, newsletterId: string) {
    const [row] = await database.rows(consentQuery(userId, newsletterId));
    return row && toStoredConsent(row);
  }

  async function listConsentChanges(userId: string, newsletterId: string, query: ConsentPageQuery) {
    if (!(await getConsent(userId, newsletterId))) return undefined;
    return (await database.rows(consentChangesQuery(userId, newsletterId, query))).map(toStoredConsentChange);
  }

  /**
   * Changes the consent as `decide` says of it now (nothing when it says null), under the lock of
   * the reader's row; undefined when there is no such consent.
   */
  async function changeConsent(
    userId: string,
    newsletterId: string,
    source: ConsentSource,
    audit: AuditContext,
    decide: (current: StoredConsent) => ConsentChange | null,
  ): Promise<ChangedConsent> {
    return database.transaction(async (client) => {
      // The reader's row first, as every change of their newsletters locks it: one order, no deadlock.
      await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
      const [row] = await rowsOn(client, consentQuery(userId, newsletterId));
      const current = row && toStoredConsent(row);
      if (!current) return undefined;
      const change = decide(current);
      if (!change) return { consent: current, changed: false };
      await applyConsentChanges(client, userId, [change], source, audit);
      // The reader's newsletters are part of their representation: its version (the ETag) moves with them.
      if (changesMembership(change)) {
        await client.query('UPDATE users SET version = version + 1, updated_at = now() WHERE id = $1', [userId]);
      }
      const [changed] = await rowsOn(client, consentQuery(userId, newsletterId));
      return { consent: toStoredConsent(changed as Row), changed: true };
    });
  }

  async function reportConsent(
    userId: string,
    newsletterId: string,
    state: ReportedState,
    source: ConsentSource,
    audit: AuditContext,
    ifVersion?: IfVersion,
  ): Promise<StoredConsent | undefined> {
    const result = await changeConsent(userId, newsletterId, source, audit, (current) => {
      requireVersion(current.version, ifVersion);
      return reportedChange(newsletterId, current.state, state);
    });
    return result?.consent;
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
    const params: unknown[] = [userId, newsletterId];
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: CONFIRMATION_LINKS,
      idColumn: 'newsletter_id',
      userIdColumn: 'user_id',
      from: 'c',
    });
    const [row] = await database.rows(
      `WITH c AS (
         SELECT user_id, newsletter_id FROM newsletter_consents WHERE user_id = $1 AND newsletter_id = $2
       ), a AS (${record})
       SELECT count(*)::int AS n FROM c`,
      params,
    );
    return Number(row?.n) > 0;
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
