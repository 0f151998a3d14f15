/**
 * Users on PostgreSQL.
 */
import { requireVersion } from '../ports/versions.js';
import type { AuditContext } from '../../domain/audit.js';
import { newsletterPointer } from '../../domain/catalogue.js';
import { membershipChanges, type ConsentState } from '../../domain/consent.js';
import { emailKeys } from '../../domain/email.js';
import { eventTypeOf } from '../../domain/events.js';
import { failures } from '../../domain/failures.js';
import { compactKey, searchKey, SIMILAR_CANDIDATES, similarity } from '../../domain/search.js';
import { subscriptionAttributeNames } from '../../domain/subscription.js';
import { USER_FIELDS } from '../../domain/user.js';
import type {
  IfVersion,
  ImportedUser,
  MatchedUser,
  NewUser,
  RenderedUser,
  StoredUser,
  UserChanges,
  UserListQuery,
  UserPage,
  UserStore,
} from '../port.js';
import { join, raw, sql, type Sql } from '../sql/builder.js';
import {
  columnOf,
  importedNewsletters,
  importedProducts,
  joining,
  productsOfPage,
  readUserPage,
  type SimilarNames,
  toColumnValue,
  toStoredUser,
  USER_COLUMNS,
} from '../sql/users.js';
import type { Row } from '../sql/rows.js';
import { givesPrintValue, SUBSCRIPTION_COLUMNS, toStoredSubscription } from '../sql/subscriptions.js';
import { USER_JSON } from '../sql/user-json.js';
import type pg from 'pg';
import { applyConsentChanges, applyImportedConsents, consentStatesOn, doubleOptInOn } from './consents.js';
import { auditInsert, versionCondition, type PostgresDatabase } from './database.js';
import type { KnownUsers } from './known-users.js';
import type { PostgresReferences } from './references.js';
import { subscriptionParams } from './subscriptions.js';
import { siteKeysChange, writesSiteKeys } from '../sql/site-licences.js';
import type { KeptSiteKeys } from './licensed-domains.js';
import { forgetSeatsOfUser } from './seats.js';
import { DELETE_USER_SITE_KEYS, insertSiteKeys } from './site-licences.js';
import { nowInSeconds } from '../../domain/dates.js';
import { forgetReaderOfPrivacyRequestsAt } from './privacy-requests.js';

/**
 * Users with their newsletters, those of the user `owner` names. A read of one user names it by
 * the parameter in both tables: Citus routes a statement to one shard only when every
 * distributed table in it is narrowed to one distribution value, and it does not infer that
 * through the correlation (test/store/citus-routing.test.ts).
 */
const userColumns = (owner = 'users.id') => `id, email, ${USER_COLUMNS.join(', ')},
    ARRAY(SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = ${owner}
          ORDER BY newsletter_id COLLATE "C") AS newsletters, last_sign_in_at, version`;

export function postgresUsers(
  database: PostgresDatabase,
  references: PostgresReferences,
  known: KnownUsers,
  readLimit: number,
  /** Told when an import adds a licence's keys (its domains, its ranges); none where nothing keeps them. */
  keptKeys?: KeptSiteKeys,
): UserStore {
  async function createUser(user: NewUser, audit: AuditContext): Promise<StoredUser> {
    const keys = emailKeys(user.email);
    const values = [
      user.email,
      keys.lower,
      keys.domain,
      user.passwordHash,
      ...searchKeysOf(user.fields),
      ...USER_FIELDS.map((f) => toColumnValue(f, user.fields[f])),
    ];
    const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
    const params = [...values];
    const record = auditInsert(params, audit, {
      action: 'create',
      resourceType: 'users',
      userIdColumn: 'id',
      from: 'u',
    });
    const insert = `WITH u AS (
        INSERT INTO users (email, email_lower, email_domain, password_hash, family_key, given_key, family_compact,
          given_compact, ${USER_COLUMNS.join(', ')})
        VALUES (${placeholders}) RETURNING id
      ), e AS (
        INSERT INTO user_emails (email_lower, user_id) SELECT $2, id FROM u
      ), a AS (${record})
      SELECT id FROM u`;
    // Without newsletters, one statement; with some, they are made sure of first, and the consents
    // to them written after, in the same transaction.
    const rows = await uniqueEmail(() =>
      user.newsletters.length === 0
        ? database.rows(insert, params)
        : database.transaction(async (client) => {
            await references.attach(client, 'newsletters', user.newsletters.map(joining), audit);
            const optIn = await doubleOptInOn(client, user.newsletters);
            const created = (await client.query(insert, params)).rows as Row[];
            const id = String(created[0]?.id);
            const changes = membershipChanges(new Map(), user.newsletters, [], optIn, newsletterPointer);
            await applyConsentChanges(client, id, changes, user.newsletterSource ?? 'api', audit);
            return created;
          }),
    );
    return (await getUser(String(rows[0]?.id))) as StoredUser;
  }

  async function importUsers(batch: readonly ImportedUser[], audit: AuditContext | null): Promise<string[]> {
    if (batch.length === 0) return [];
    const columns = [
      'email',
      'email_lower',
      'email_domain',
      'password_hash',
      'family_key',
      'given_key',
      'family_compact',
      'given_compact',
      ...USER_COLUMNS,
    ];
    const values: unknown[][] = columns.map(() => []);
    for (const { user } of batch) {
      const keys = emailKeys(user.email);
      const row: unknown[] = [user.email, keys.lower, keys.domain, user.passwordHash, ...searchKeysOf(user.fields)];
      for (const field of USER_FIELDS) row.push(toColumnValue(field, user.fields[field]));
      row.forEach((value, i) => values[i]!.push(value));
    }
    const types = columns.map((c) => (c === 'demographics' ? 'jsonb[]' : 'text[]'));
    const addsKeys = batch.some(({ subscriptions }) => subscriptions.some(writesSiteKeys));
    try {
      return await database.transaction(async (client) => {
        await references.attach(client, 'newsletters', batch.flatMap(importedNewsletters), audit);
        await references.attach(client, 'products', batch.flatMap(importedProducts), audit);
        const optIn = await doubleOptInOn(
          client,
          batch.flatMap(({ user }) => user.newsletters),
        );
        // One statement per table for the whole batch: arrays zipped by unnest.
        const { rows } = await uniqueEmail(() =>
          client.query<{ id: string; email_lower: string }>(
            `INSERT INTO users (${columns.join(', ')})
           SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(', ')})
           RETURNING id, email_lower`,
            values,
          ),
        );
        await uniqueEmail(() =>
          client.query(
            'INSERT INTO user_emails (email_lower, user_id) SELECT * FROM unnest($1::text[], $2::bigint[])',
            [rows.map((r) => r.email_lower), rows.map((r) => r.id)],
          ),
        );
        const idOf = new Map(rows.map((r) => [r.email_lower, r.id]));
        const ids = batch.map(({ user }) => idOf.get(emailKeys(user.email).lower) as string);
        if (audit) {
          const attributes = batch.map((imported) => imported.attributes ?? audit.attributes);
          await recordCreated(client, audit, 'users', ids, ids, attributes);
        }
        // After the users' events, so that a reader's consents follow their user.created.
        const consents = batch.flatMap(({ user }, i) =>
          membershipChanges(new Map(), user.newsletters, [], optIn, newsletterPointer).map((change) => ({
            userId: ids[i] as string,
            change,
          })),
        );
        await applyImportedConsents(client, consents, audit);
        const subscriptions = batch.flatMap(({ subscriptions }, i) =>
          subscriptions.map((v) => subscriptionParams(ids[i] as string, v)),
        );
        const licences = batch.some(({ subscriptions }) => subscriptions.some((v) => siteKeysChange(undefined, v)));
        if (subscriptions.length > 0) {
          const { rows: created } = await client.query(
            `INSERT INTO subscriptions (user_id, date_started, date_ended, external_identifier, license, resource,
             trial, product_id, pending_start, delivery_days, ip_ranges, email_domains, seats, gives_print)
           SELECT v.*, ${givesPrintValue('v.resource', 'v.product_id', 'postgres')}
           FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[], $4::text[], $5::text[],
             $6::text[], $7::boolean[], $8::text[], $9::timestamptz[], $10::integer[], $11::text[], $12::text[],
             $13::integer[]) AS v (user_id, date_started, date_ended, external_identifier, license, resource,
             trial, product_id, pending_start, delivery_days, ip_ranges, email_domains, seats)
           ${audit || licences ? `RETURNING ${SUBSCRIPTION_COLUMNS}` : ''}`,
            Array.from({ length: 13 }, (_, column) => subscriptions.map((params) => params[column])),
          );
          // The site licences' keys, from the terms each row returned holds.
          await insertSiteKeys(
            client,
            created.map(toStoredSubscription).filter((s) => siteKeysChange(undefined, s)),
          );
          if (audit) {
            // Named by the values each holds, which the rows returned carry, in whatever order they come.
            const stored = created.map(toStoredSubscription);
            const names = stored.map(subscriptionAttributeNames);
            await recordCreated(
              client,
              audit,
              'subscriptions',
              stored.map((s) => s.id),
              stored.map((s) => s.userId),
              names,
            );
          }
        }
        return ids;
      });
    } finally {
      // Even when the commit's answer was lost: the keys may have been written.
      if (addsKeys) keptKeys?.added();
    }
  }

  async function usersByEmail(emails: readonly string[]): Promise<Map<string, MatchedUser>> {
    const rows = await database.rows(
      `SELECT ${userColumns()}, email_lower, password_hash,
         (SELECT coalesce(jsonb_object_agg(c.newsletter_id, c.state), '{}') FROM newsletter_consents c
          WHERE c.user_id = users.id) AS consents
       FROM users WHERE email_lower = ANY($1::text[])`,
      [emails.map((e) => emailKeys(e).lower)],
    );
    return new Map(
      rows.map((r) => [
        r.email_lower as string,
        {
          user: toStoredUser(r),
          passwordHash: (r.password_hash as string | null) ?? null,
          consents: new Map(Object.entries(r.consents as Record<string, ConsentState>)),
        },
      ]),
    );
  }

  async function getUser(id: string): Promise<StoredUser | undefined> {
    const [row] = await database.preparedRows('user', `SELECT ${userColumns('$1::bigint')} FROM users WHERE id = $1`, [
      id,
    ]);
    return row && toStoredUser(row);
  }

  /** A page of users, `columns` of each as `rows` reads them, once what it needs of the catalogue is read. */
  async function pageOf<R>(
    query: UserListQuery,
    columns: Sql,
    rows: (page: Sql) => Promise<R[]>,
    idOf: (row: R) => string,
  ): Promise<UserPage<R>> {
    const products = productsOfPage(query);
    const ids = products ? (await database.rows(products)).map((row) => row.id as string) : [];
    const firstId = async (read: Sql) => {
      const [row] = await database.arrays(read);
      return row && String(row[0]);
    };
    return readUserPage(query, columns, {
      dialect: 'postgres',
      products: ids,
      readLimit,
      rows,
      firstId,
      idOf,
      similarNames,
    });
  }

  /** The schema of pg_trgm, read once (migration 25 installs it). */
  let trigrams: Promise<string> | undefined;

  /**
   * Each name's trigram index read by pg_trgm's `%` (similarity of 0.3 or more, its default, which
   * every name one typo from a text of four letters or more reaches), each cut at `limit`.
   */
  /** The names too frequent for the trigram indexes to serve, read again when older than FREQUENT_NAMES_TTL_MS. */
  let frequent: { at: number; names: Promise<FrequentNames> } | undefined;
  const frequentNames = (): Promise<FrequentNames> => {
    const now = Date.now();
    if (frequent === undefined || now - frequent.at >= FREQUENT_NAMES_TTL_MS) {
      const names = readFrequentNames(database.pool, SIMILAR_CANDIDATES);
      frequent = { at: now, names };
      names.catch(() => (frequent = undefined));
    }
    return frequent.names;
  };

  async function similarNames(text: string, limit: number): Promise<SimilarNames[]> {
    trigrams ??= trigramSchema(database.pool).catch((error: unknown) => {
      trigrams = undefined;
      throw error;
    });
    const [schema, names] = await Promise.all([trigrams, frequentNames()]);
    const { text: statement, values } = similarNamesQuery(schema, text, limit, closeTo(text, names)).render('postgres');
    const rows = await database.transaction(async (client) => {
      await client.query(SIMILAR_NAMES_PLAN);
      return (await client.query({ text: statement, values, rowMode: 'array' })).rows as unknown[][];
    });
    return rows.map(([id, f, g]) => ({ id: String(id), names: [f as string | null, g as string | null] }));
  }

  async function listUsers(query: UserListQuery): Promise<UserPage<StoredUser>> {
    const page = await pageOf(
      query,
      raw(userColumns()),
      (statement) => database.rows(statement),
      (row) => String(row.id),
    );
    return { ...page, users: page.users.map(toStoredUser) };
  }

  async function listRenderedUsers(query: UserListQuery): Promise<UserPage<RenderedUser>> {
    const page = await pageOf(
      query,
      sql`id, ${USER_JSON.postgres.read.columns}`,
      (statement) => database.arrays(statement),
      (row) => String(row[0]),
    );
    return {
      ...page,
      users: page.users.map((row) => ({ id: String(row[0]), json: USER_JSON.postgres.read.assemble(row, 1) })),
    };
  }

  async function updateUser(id: string, changes: UserChanges, audit: AuditContext, ifVersion?: IfVersion) {
    const params: unknown[] = [id];
    const sets = ['updated_at = now()', 'version = version + 1'];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    // A new address moves the user's row in the email lookup (none when only its case changes),
    // forgets the sign-in attempts counted for the address left, which would outlive an erasure,
    // and voids the reset tokens mailed to it, which may no longer be the reader's.
    let moved = '';
    if (changes.email !== undefined) {
      const keys = emailKeys(changes.email);
      set('email', changes.email);
      set('email_lower', keys.lower);
      set('email_domain', keys.domain);
      const lower = `$${params.length - 1}`;
      // Neither reads the user's row before the update: Citus runs each CTE as a query of its own.
      moved = `left_email AS (DELETE FROM user_emails WHERE user_id = $1 AND email_lower <> ${lower}
          AND EXISTS (SELECT 1 FROM u) RETURNING email_lower),
        left_attempts AS (DELETE FROM sign_in_attempts WHERE email_lower IN (SELECT email_lower FROM left_email)),
        took_email AS (INSERT INTO user_emails (email_lower, user_id) SELECT ${lower}, id FROM u
          WHERE NOT EXISTS (SELECT 1 FROM user_emails WHERE email_lower = ${lower} AND user_id = $1)),`;
    }
    if (changes.passwordHash !== undefined) set('password_hash', changes.passwordHash);
    // A new password voids every reset token of the user, and so does a new address (left_email
    // answers a row only when the address moved). One part deletes them for either reason, after
    // `moved` so that it may name left_email: PostgreSQL does not say which of two parts of one
    // statement changing the same rows takes effect.
    const voidedWhen = [
      ...(changes.passwordHash === undefined ? [] : ['EXISTS (SELECT 1 FROM u)']),
      ...(changes.email === undefined ? [] : ['EXISTS (SELECT 1 FROM left_email)']),
    ];
    const voided =
      voidedWhen.length === 0
        ? ''
        : `voided AS (DELETE FROM password_reset_tokens WHERE user_id = $1 AND (${voidedWhen.join(' OR ')})),`;
    for (const [field, value] of Object.entries(changes.fields)) set(columnOf(field), toColumnValue(field, value));
    if ('familyName' in changes.fields) {
      set('family_key', searchKey(changes.fields.familyName as string));
      set('family_compact', compactKey(changes.fields.familyName as string));
    }
    if ('givenName' in changes.fields) {
      set('given_key', searchKey(changes.fields.givenName as string | null));
      set('given_compact', compactKey(changes.fields.givenName as string | null));
    }
    const condition = versionCondition(params, ifVersion);
    const record = auditInsert(params, audit, {
      action: 'update',
      resourceType: 'users',
      userIdColumn: 'id',
      from: 'u',
    });
    // One statement: the row lock of the UPDATE orders concurrent changes to the same user. Each
    // part names the user by $1, not by the updated row: Citus runs each CTE as a query of its
    // own, and routes to the user's shard only one that carries the id itself.
    const update = `WITH u AS (
        UPDATE users SET ${sets.join(', ')} WHERE id = $1 ${condition} RETURNING id
      ), ${moved} ${voided} a AS (${record})
      SELECT count(*)::int AS n FROM u`;
    const { addNewsletters: add, removeNewsletters: remove } = changes;
    // Newsletter changes read the consents, and make sure of the newsletters added, first, in the
    // same transaction, once the user is locked; their consents are written after the user's event.
    const rows = await uniqueEmail(() =>
      add.length + remove.length === 0
        ? database.rows(update, params)
        : database.transaction(async (client) => {
            const user = await client.query('SELECT version FROM users WHERE id = $1 FOR NO KEY UPDATE', [id]);
            if (user.rowCount === 0) return [];
            // Refused before anything is registered: a refused write leaves nothing behind.
            requireVersion(user.rows[0].version, ifVersion);
            const current = await consentStatesOn(client, id, [...add, ...remove]);
            const optIn = await doubleOptInOn(client, add);
            const consentChanges = membershipChanges(current, add, remove, optIn, newsletterPointer);
            // Only what an add changes attaches a newsletter: being on an inactive one already is no new attachment.
            const adding = new Set(consentChanges.filter((c) => c.to !== 'unsubscribed').map((c) => c.newsletterId));
            await references.attach(
              client,
              'newsletters',
              add.map(joining).filter((r) => adding.has(r.id)),
              audit,
            );
            const updated = (await client.query(update, params)).rows as Row[];
            await applyConsentChanges(client, id, consentChanges, changes.newsletterSource ?? 'api', audit);
            return updated;
          }),
    );
    return rows[0]?.n === 1 || (await database.refusedOrMissing('users', 'id = $1', [id], ifVersion));
  }

  async function deleteUser(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    // The rows of the user's email are sharded by the email (citus.ts): named by its value, they
    // route to one shard each. It is read first, under the row lock, so no change of address
    // comes between.
    return known.erasing(async (client) => {
      const { rows } = await client.query<{ email_lower: string; version: number }>(
        'SELECT email_lower, version FROM users WHERE id = $1 FOR UPDATE',
        [id],
      );
      const user = rows[0];
      if (!user) return false;
      requireVersion(user.version, ifVersion);
      await forgetSeatsOfUser(client, id, audit);
      return database.deleteRow({
        table: 'users',
        where: 'id = $1',
        keys: [id, user.email_lower],
        userIdColumn: 'id',
        audit,
        ifVersion: undefined,
        dependents: [
          'DELETE FROM sign_in_attempts WHERE email_lower = $2 AND EXISTS (SELECT 1 FROM d)',
          'DELETE FROM user_emails WHERE email_lower = $2 AND EXISTS (SELECT 1 FROM d)',
          // On Citus no foreign key can reach these from the sharded users (see citus.ts): erased here.
          'DELETE FROM idempotency_keys WHERE user_id IN (SELECT id FROM d)',
          // Nor the keys of the reader's site licences, reference tables there (migration 31).
          ...DELETE_USER_SITE_KEYS,
          // A privacy request outlives its reader, without their id or notes (migration 35).
          forgetReaderOfPrivacyRequestsAt(nowInSeconds()),
        ],
        on: client,
      });
    });
  }

  return {
    create: createUser,
    import: importUsers,
    get: getUser,
    byEmail: usersByEmail,
    list: listUsers,
    listRendered: listRenderedUsers,
    update: updateUser,
    delete: deleteUser,
  };
}

/**
 * The `create` audit entries (and events) of records made in bulk: one for each id, of the user
 * beside it, naming the attributes beside it. Names are joined with commas, which none holds.
 */
async function recordCreated(
  client: pg.ClientBase,
  audit: AuditContext,
  resourceType: 'users' | 'subscriptions',
  ids: readonly string[],
  userIds: readonly string[],
  attributes: readonly (readonly string[])[],
): Promise<void> {
  await client.query(
    `INSERT INTO audit_log (actor, action, resource_type, resource_id, user_id, attributes, event_type)
     SELECT $1, 'create', $2, a.id, a.user_id, string_to_array(a.attributes, ','), $3
     FROM unnest($4::text[], $5::text[], $6::text[]) AS a (id, user_id, attributes)`,
    [
      audit.actor,
      resourceType,
      eventTypeOf(resourceType, 'create'),
      ids,
      userIds,
      attributes.map((names) => names.join(',')),
    ],
  );
}

/**
 * The search keys of a new user's names and their compact keys (domain/search.ts), in the order of
 * the columns family_key, given_key, family_compact, given_compact.
 */
function searchKeysOf(fields: NewUser['fields']): (string | null)[] {
  const family = fields.familyName as string;
  const given = fields.givenName as string | null | undefined;
  return [searchKey(family), searchKey(given), compactKey(family), compactKey(given)];
}

/**
 * Migrations 19 and 24: the search keys of the users there were, a thousand at a time; from 24 on
 * (`compact`) with the compact keys, and computed anew, since the key of a name changed.
 */
async function fillKeys(client: pg.ClientBase, compact: boolean): Promise<void> {
  for (let after = '0'; ;) {
    const { rows } = await client.query<{ id: string; family_name: string; given_name: string | null }>(
      'SELECT id, family_name, given_name FROM users WHERE id > $1 ORDER BY id LIMIT 1000',
      [after],
    );
    if (rows.length === 0) return;
    const keys = [rows.map((r) => searchKey(r.family_name)), rows.map((r) => searchKey(r.given_name))];
    await client.query(
      compact
        ? `UPDATE users SET family_key = k.family_key, given_key = k.given_key, family_compact = k.family_compact,
             given_compact = k.given_compact
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
             AS k (id, family_key, given_key, family_compact, given_compact)
           WHERE users.id = k.id`
        : `UPDATE users SET family_key = k.family_key, given_key = k.given_key
           FROM unnest($1::bigint[], $2::text[], $3::text[]) AS k (id, family_key, given_key) WHERE users.id = k.id`,
      [
        rows.map((r) => r.id),
        ...keys,
        ...(compact ? [rows.map((r) => compactKey(r.family_name)), rows.map((r) => compactKey(r.given_name))] : []),
      ],
    );
    after = rows.at(-1)!.id;
  }
}

/** Migration 19: the search keys of the users there were. */
export const fillUserSearchKeys = (client: pg.ClientBase): Promise<void> => fillKeys(client, false);

/** Migration 24: the search keys anew, and the compact keys. */
export const fillUserCompactKeys = (client: pg.ClientBase): Promise<void> => fillKeys(client, true);

/**
 * The constraints an email already taken breaks: the users' unique index on one server, the
 * lookup's primary key everywhere. On Citus it is a shard's copy (named with a suffix), and a
 * row written through the coordinator's COPY reports it as an internal error naming it.
 */
const EMAIL_TAKEN = /unique constraint "(users_email_lower|user_emails_pkey)/;
const UNIQUE_VIOLATION = new Set(['23505', 'XX000']);

/** Runs a write that may break the unique email index, turning that into the failure it is. */
async function uniqueEmail<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (UNIQUE_VIOLATION.has(e.code ?? '') && EMAIL_TAKEN.test(e.message ?? '')) throw failures.emailTaken();
    throw error;
  }
}

/**
 * The names' expressions a name one typo from a text is found by: each name's compact key, or its
 * key where it has none of its own (domain/search.ts). The trigram indexes and the query say them alike.
 */
export const SIMILAR_NAMES = ['coalesce(family_compact, family_key)', 'coalesce(given_compact, given_key)'] as const;

/**
 * The users whose names may be one typo from a text, with the names (`SIMILAR_NAMES`) to rank them
 * by: each name's trigram index read by pg_trgm's `%` (of `schema`), each cut at `limit`, run after
 * `SIMILAR_NAMES_PLAN` in its transaction. The index's bitmap is built whole, its cost that of the
 * matches' entries; the users are read only up to the cut. (A GiST index read nearest first was
 * bounded by the cut, but its lossy signatures prune little among many distinct names: for "nunes"
 * among made-up names it took many times as long as GIN.) A name of `frequent` one typo from the
 * text is read instead from its key's index, since the bitmap of its holders costs as many.
 */
export function similarNamesQuery(
  schema: string,
  text: string,
  limit: number,
  frequent: FrequentNames = { family: [], given: [] },
): Sql {
  const similar = raw(`OPERATOR(${schema}.%)`);
  const [family, given] = SIMILAR_NAMES.map(raw) as [Sql, Sql];
  const select = (where: Sql, order: Sql = sql``) =>
    sql`(SELECT id, ${family}, ${given} FROM users WHERE ${where} ${order}LIMIT ${limit})`;
  // A frequent name's holders by its key's index in id order, the read stopping at the cut. Said
  // as a range of (key, id) from the name's first entry, not as the key equal to the name: with
  // the key held equal the planner walked the primary key for the id order, counting on the
  // holders to be spread evenly over it, which they need not be (ids are positive).
  const arms = (name: Sql, key: string, close: readonly string[]) =>
    close.length > 0
      ? close.map((each) =>
          select(sql`(${raw(key)}, id) > (${each}, 0) AND ${raw(key)} <= ${each}`, sql`ORDER BY ${raw(key)}, id `),
        )
      : [select(sql`${name} ${similar} ${text}`)];
  return join(
    [...arms(family, 'family_key', frequent.family), ...arms(given, 'given_key', frequent.given)],
    ' UNION ALL ',
  );
}

/**
 * Each name's keys so frequent that their holders alone fill a search's candidates for a name one
 * typo off. The trigram index cannot serve a text near one: its bitmap is built of every holder
 * before the cut (all the Lovelaces for "lovelase", where one reader in nine is a Lovelace), so
 * such a name's candidates are read from its key's index instead, in id order, up to the cut.
 * Where the index would have given rarer names as close beside them, the cut kept whichever rows
 * came first in the table, which were as likely to be the frequent name's.
 */
export interface FrequentNames {
  family: readonly string[];
  given: readonly string[];
}

/** How long a process goes by the frequent names it read: the planner's statistics change as slowly. */
export const FREQUENT_NAMES_TTL_MS = 10 * 60 * 1000;

/**
 * The frequent names by the planner's statistics of the key columns (pg_stats, which ANALYZE and
 * autovacuum keep): those whose share of the users comes to `holders` or more. None on Citus,
 * whose coordinator keeps no statistics of a distributed table's rows: there the index serves all.
 */
export async function readFrequentNames(client: pg.ClientBase | pg.Pool, holders: number): Promise<FrequentNames> {
  const { rows } = await client.query<{ column: string; names: string[]; shares: number[]; users: number }>(
    `SELECT s.attname AS column, s.most_common_vals::text::text[] AS names, s.most_common_freqs AS shares,
            c.reltuples AS users
       FROM pg_stats s
       JOIN pg_class c ON c.relname = s.tablename AND c.relnamespace = s.schemaname::regnamespace
      WHERE s.schemaname = current_schema() AND s.tablename = 'users' AND s.attname IN ('family_key', 'given_key')
        AND s.most_common_vals IS NOT NULL`,
  );
  const frequent = (column: string) => {
    const row = rows.find((r) => r.column === column);
    return row ? row.names.filter((_, i) => (row.shares[i] ?? 0) * row.users >= holders) : [];
  };
  return { family: frequent('family_key'), given: frequent('given_key') };
}

/** The frequent names one typo from a text (`similarity`). */
export function closeTo(text: string, names: FrequentNames): FrequentNames {
  const close = (list: readonly string[]) => list.filter((name) => similarity(text, name) !== undefined);
  return { family: close(names.family), given: close(names.given) };
}

/**
 * What `similarNamesQuery` is planned under: no Seq Scan. Where many users share names like the
 * text (one in nine of the bench's seeded readers), the planner took the cut for a scan of the
 * table stopping early, and, where the rows it met first did not match, read every user, a search's
 * cost then growing with the table. A MATERIALIZED CTE, planned for all its rows,
 * came to the same scan there. The index is the only other way to read it, so this chooses it.
 */
export const SIMILAR_NAMES_PLAN = 'SET LOCAL enable_seqscan = off';

/** The schema pg_trgm is in, as an identifier: its operators are named by it, whatever the search path. */
export async function trigramSchema(client: pg.ClientBase | pg.Pool): Promise<string> {
  const { rows } = await client.query<{ schema: string }>(
    "SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pg_trgm'",
  );
  if (rows[0] === undefined) throw new Error('pg_trgm is not installed (migration 25 installs it)');
  return rows[0].schema;
}

/**
 * Migration 25: pg_trgm, in public so that every schema of the database finds it where it is
 * (the schema a migration runs in may be one of several, and the extension is one per database),
 * unless it is installed already; and a trigram index of each name. On Citus, creating it on the
 * coordinator creates it on the workers, and the indexes go with the table's shards.
 */
export async function indexNamesBySimilarity(client: pg.ClientBase): Promise<void> {
  await client.query('SAVEPOINT pg_trgm');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public');
    await client.query('RELEASE SAVEPOINT pg_trgm');
  } catch (error) {
    // Another database's migration (another schema's) made it at the same moment: there it is.
    if ((error as { code?: string }).code !== '23505') throw error;
    await client.query('ROLLBACK TO SAVEPOINT pg_trgm');
  }
  const schema = await trigramSchema(client);
  const [family, given] = SIMILAR_NAMES;
  // GIN, exact where GiST's signatures are lossy (see similarNamesQuery). Without fastupdate: its
  // pending list, which every search reads through until a vacuum merges it, held the entries of
  // the latest writes, up to 4 MB of them, which made a search just after an import dear for the
  // database. A write then updates the index itself, a little more costly.
  for (const [index, name] of [
    ['users_family_similar', family],
    ['users_given_similar', given],
  ] as const) {
    await client.query(
      `CREATE INDEX ${index} ON users USING gin ((${name}) ${schema}.gin_trgm_ops) WITH (fastupdate = off)`,
    );
  }
}
