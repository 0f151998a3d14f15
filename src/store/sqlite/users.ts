/**
 * Users on SQLite.
 */
import type { AuditContext } from '../../domain/audit.js';
import { newsletterPointer } from '../../domain/catalogue.js';
import { membershipChanges, type ConsentState, type MembershipSource } from '../../domain/consent.js';
import { emailKeys } from '../../domain/email.js';
import { failures } from '../../domain/failures.js';
import { compactKey, searchKey, similarPieces } from '../../domain/search.js';
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
import { raw, sql, type Sql } from '../sql/builder.js';
import type { Row } from '../sql/rows.js';
import type Database from 'better-sqlite3';
import {
  columnOf,
  fieldsOfValues,
  importedNewsletters,
  importedProducts,
  joining,
  productsOfPage,
  readUserPage,
  type SimilarNames,
  toColumnValue,
  USER_COLUMNS,
} from '../sql/users.js';
import { forgetAttemptsOf } from '../sql/sign-ins.js';
import { USER_JSON } from '../sql/user-json.js';
import type { SqliteConsentWriter } from './consents.js';
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';
import type { SqliteReferences } from './references.js';
import { INSERT_SUBSCRIPTION, subscriptionParams } from './subscriptions.js';
import { siteKeysChange } from '../sql/site-licences.js';
import { DELETE_USER_SITE_KEYS, sqliteSiteKeys } from './site-licences.js';
import { FORGET_READER_OF_PRIVACY_REQUESTS } from './privacy-requests.js';

const USER_ROW_COLUMNS = `id, email, ${USER_COLUMNS.join(', ')},
    (SELECT json_group_array(newsletter_id) FROM
      (SELECT newsletter_id FROM user_newsletters n WHERE n.user_id = users.id ORDER BY newsletter_id)
    ) AS newsletters, last_sign_in_at, version`;

export function sqliteUsers(
  database: SqliteDatabase,
  references: SqliteReferences,
  consents: SqliteConsentWriter,
  readLimit: number,
): UserStore {
  const { db } = database;
  const profileColumns = USER_COLUMNS.join(', ');

  const insertUser = db.prepare(`
    INSERT INTO users (email, email_lower, email_domain, password_hash, family_key, given_key, family_compact,
      given_compact, ${profileColumns})
    VALUES (@email, @email_lower, @email_domain, @password_hash, @family_key, @given_key, @family_compact,
      @given_compact,
      ${USER_COLUMNS.map((c) => `@${c}`).join(', ')})`);
  const voidResetTokens = db.prepare('DELETE FROM password_reset_tokens WHERE user_id = ?');
  const importSubscription = db.prepare(INSERT_SUBSCRIPTION);
  const siteKeys = sqliteSiteKeys(database);

  function insert(user: NewUser): string {
    return String(uniqueEmail(() => insertUser.run(userRow(user)).lastInsertRowid));
  }

  /** A new user's consents to the newsletters added, after their `user.created`. */
  function consentTo(
    id: string,
    newsletters: readonly string[],
    optIn: ReadonlySet<string>,
    source: MembershipSource,
    audit: AuditContext | null,
  ) {
    const changes = membershipChanges(new Map(), newsletters, [], optIn, newsletterPointer);
    consents.apply(id, changes, source, audit);
  }

  async function createUser(user: NewUser, audit: AuditContext): Promise<StoredUser> {
    const id = db
      .transaction(() => {
        references.attach('newsletters', user.newsletters.map(joining), audit);
        const created = insert(user);
        database.record(audit, { action: 'create', resourceType: 'users', resourceId: created, userId: created });
        const optIn = consents.doubleOptInOf(user.newsletters);
        consentTo(created, user.newsletters, optIn, user.newsletterSource ?? 'api', audit);
        return created;
      })
      .immediate();
    return (await getUser(id)) as StoredUser;
  }

  async function importUsers(batch: readonly ImportedUser[], audit: AuditContext | null): Promise<string[]> {
    return db
      .transaction(() => {
        references.attach('newsletters', batch.flatMap(importedNewsletters), audit);
        references.attach('products', batch.flatMap(importedProducts), audit);
        const optIn = consents.doubleOptInOf([...new Set(batch.flatMap(({ user }) => user.newsletters))]);
        return batch.map(({ user, subscriptions, attributes }) => {
          const id = insert(user);
          if (audit)
            database.record(
              { ...audit, attributes: attributes ?? audit.attributes },
              { action: 'create', resourceType: 'users', resourceId: id, userId: id },
            );
          consentTo(id, user.newsletters, optIn, 'import', audit);
          for (const values of subscriptions) {
            const created = String(importSubscription.run(subscriptionParams(id, values)).lastInsertRowid);
            if (siteKeysChange(undefined, values)) siteKeys.write(id, created, values);
            if (!audit) continue;
            const names = { ...audit, attributes: subscriptionAttributeNames(values) };
            database.record(names, {
              action: 'create',
              resourceType: 'subscriptions',
              resourceId: created,
              userId: id,
            });
          }
          return id;
        });
      })
      .immediate();
  }

  const selectByEmail = db
    .prepare(
      `SELECT ${USER_ROW_COLUMNS}, password_hash,
        (SELECT json_group_object(newsletter_id, state) FROM newsletter_consents c WHERE c.user_id = users.id)
      FROM users WHERE email_lower IN (SELECT value FROM json_each(?))`,
    )
    .raw();

  async function usersByEmail(emails: readonly string[]): Promise<Map<string, MatchedUser>> {
    const rows = selectByEmail.all(JSON.stringify(emails.map((e) => emailKeys(e).lower))) as unknown[][];
    return new Map(
      rows.map((values) => {
        const user = userOfValues(values);
        const passwordHash = values[5 + USER_COLUMNS.length] as string | null;
        const states = JSON.parse(values[6 + USER_COLUMNS.length] as string) as Record<string, ConsentState>;
        return [emailKeys(user.email).lower, { user, passwordHash, consents: new Map(Object.entries(states)) }];
      }),
    );
  }

  // Rows as arrays: better-sqlite3 builds an object per row at several times the cost.
  const selectUser = db.prepare(`SELECT ${USER_ROW_COLUMNS} FROM users WHERE id = ?`).raw();

  async function getUser(id: string): Promise<StoredUser | undefined> {
    const values = selectUser.get(id) as unknown[] | undefined;
    return values && userOfValues(values);
  }

  /** A page of users, `columns` of each as arrays, once what it needs of the catalogue is read. */
  function pageOf(query: UserListQuery, columns: Sql): Promise<UserPage<unknown[]>> {
    const products = productsOfPage(query);
    const ids = products ? database.all(products).map((row) => row.id as string) : [];
    const rows = async (page: Sql) => {
      const { statement, values } = database.statement(page);
      return statement.raw().all(...values) as unknown[][];
    };
    const firstId = async (read: Sql) => {
      const { statement, values } = database.statement(read);
      const row = statement.raw().get(...values) as unknown[] | undefined;
      return row && String(row[0]);
    };
    const idOf = (row: unknown[]) => String(row[0]);
    return readUserPage(query, columns, {
      dialect: 'sqlite',
      products: ids,
      readLimit,
      rows,
      firstId,
      idOf,
      similarNames,
    });
  }

  const similarCandidates = db.prepare(SIMILAR_NAMES_SQL).raw();

  async function similarNames(text: string, limit: number): Promise<SimilarNames[]> {
    const rows = similarCandidates.all(similarMatch(text), limit) as [number, string | null, string | null][];
    return rows.map(([id, family, given]) => ({ id: String(id), names: [family, given] }));
  }

  async function listUsers(query: UserListQuery): Promise<UserPage<StoredUser>> {
    const page = await pageOf(query, raw(USER_ROW_COLUMNS));
    return { ...page, users: page.users.map(userOfValues) };
  }

  async function listRenderedUsers(query: UserListQuery): Promise<UserPage<RenderedUser>> {
    const page = await pageOf(query, sql`id, ${USER_JSON.sqlite.read.columns}`);
    return {
      ...page,
      users: page.users.map((row) => ({ id: String(row[0]), json: USER_JSON.sqlite.read.assemble(row, 1) })),
    };
  }

  const selectUserRow = db.prepare(`
    SELECT email, email_lower, email_domain, password_hash, version, ${profileColumns} FROM users WHERE id = ?`);
  const updateRow = db.prepare(`
    UPDATE users SET email = @email, email_lower = @email_lower, email_domain = @email_domain,
      password_hash = @password_hash, family_key = @family_key, given_key = @given_key,
      family_compact = @family_compact, given_compact = @given_compact,
      ${USER_COLUMNS.map((c) => `${c} = @${c}`).join(', ')},
      version = version + 1, updated_at = unixepoch()
    WHERE id = @id`);

  async function updateUser(id: string, changes: UserChanges, audit: AuditContext, ifVersion?: IfVersion) {
    return db
      .transaction(() => {
        const current = selectUserRow.get(id) as Row | undefined;
        if (!current) return false;
        requireVersion(current.version as number, ifVersion);
        const { version: _version, ...stored } = current;
        const row: Row = { ...stored, id };
        if (changes.email !== undefined) {
          const keys = emailKeys(changes.email);
          if (keys.lower !== current.email_lower) {
            // The attempts counted for the address left would outlive an erasure of the reader.
            database.changes(forgetAttemptsOf(current.email_lower as string));
            // A token was mailed to the address left, which may no longer be the reader's.
            voidResetTokens.run(id);
          }
          Object.assign(row, { email: changes.email, email_lower: keys.lower, email_domain: keys.domain });
        }
        if (changes.passwordHash !== undefined) {
          row.password_hash = changes.passwordHash;
          voidResetTokens.run(id);
        }
        for (const [field, value] of Object.entries(changes.fields)) row[columnOf(field)] = toColumnValue(field, value);
        uniqueEmail(() => updateRow.run(withSearchKeys(row)));
        const { addNewsletters: add, removeNewsletters: remove } = changes;
        const newsletterChanges =
          add.length + remove.length === 0
            ? []
            : membershipChanges(
                consents.statesOf(id, [...add, ...remove]),
                add,
                remove,
                consents.doubleOptInOf(add),
                newsletterPointer,
              );
        // Only what an add changes attaches a newsletter: being on an inactive one already is no new attachment.
        const adding = new Set(newsletterChanges.filter((c) => c.to !== 'unsubscribed').map((c) => c.newsletterId));
        references.attach(
          'newsletters',
          add.map(joining).filter((r) => adding.has(r.id)),
          audit,
        );
        database.record(audit, { action: 'update', resourceType: 'users', resourceId: id, userId: id });
        consents.apply(id, newsletterChanges, changes.newsletterSource ?? 'api', audit);
        return true;
      })
      .immediate();
  }

  const userVersion = db.prepare('SELECT version FROM users WHERE id = ?').pluck();
  const deleteRow = db.prepare('DELETE FROM users WHERE id = ?');
  const seatsHeld = db.prepare('SELECT id, user_id FROM seats WHERE holder_id = ?');
  // Before the user goes: the attempts counted for their email name them too (reset tokens cascade).
  const forgetAttempts = db.prepare(
    'DELETE FROM sign_in_attempts WHERE email_lower = (SELECT email_lower FROM users WHERE id = ?)',
  );

  // A licence's keys name its owner without a foreign key (see migration 31): they go first.
  const forgetSiteKeys = DELETE_USER_SITE_KEYS.map((text) => db.prepare(text));
  // A privacy request outlives its reader, without their id or notes (migration 35).
  const forgetPrivacyRequests = db.prepare(FORGET_READER_OF_PRIVACY_REQUESTS);

  async function deleteUser(id: string, audit: AuditContext, ifVersion?: IfVersion): Promise<boolean> {
    // The seats the reader holds go by cascade; each is a seat.deleted of its licence's owner, so
    // the institution learns the seat is free. Read in the erasure's transaction.
    const deleted = db.transaction(() => {
      const held = seatsHeld.all(id) as { id: number; user_id: number }[];
      return database.deleteRow({
        version: userVersion,
        remove: deleteRow,
        keys: [id],
        ifVersion,
        record: () => {
          for (const seat of held)
            database.record(audit, {
              action: 'delete',
              resourceType: 'seats',
              resourceId: String(seat.id),
              userId: String(seat.user_id),
            });
          database.record(audit, { action: 'delete', resourceType: 'users', resourceId: id, userId: id });
        },
        dependents: [forgetAttempts, ...forgetSiteKeys, forgetPrivacyRequests],
      });
    })();
    // The rows are zeroed in the file (secure_delete), but the write-ahead log still holds the
    // pages as they were: copy it into the file and empty it, so nothing of the reader is left.
    if (deleted) database.checkpoint();
    return deleted;
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

/** Runs a write that may break the unique email index, turning that into the failure it is. */
function uniqueEmail<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' && e.message?.includes('email_lower')) throw failures.emailTaken();
    throw error;
  }
}

/** A user read with `USER_ROW_COLUMNS` as an array: id, email, the profile columns, newsletters. */
function userOfValues(values: readonly unknown[]): StoredUser {
  return {
    id: String(values[0]),
    email: values[1] as string,
    fields: fieldsOfValues(values, 2),
    newsletters: JSON.parse(values[2 + USER_COLUMNS.length] as string) as string[],
    lastSignInAt: values[3 + USER_COLUMNS.length] as number | null,
    version: values[4 + USER_COLUMNS.length] as number,
  };
}

function userRow(user: NewUser): Row {
  const keys = emailKeys(user.email);
  const row: Row = {
    email: user.email,
    email_lower: keys.lower,
    email_domain: keys.domain,
    password_hash: user.passwordHash,
  };
  for (const field of USER_FIELDS) row[columnOf(field)] = toColumnValue(field, user.fields[field]);
  return withSearchKeys(row);
}

/**
 * The users whose names may be one typo from a text, with the names to rank them by: the trigram
 * index's rows (`similarMatch`) in rowid order, cut before the users are read, so the read is bounded.
 */
export const SIMILAR_NAMES_SQL = `SELECT id, coalesce(family_compact, family_key), coalesce(given_compact, given_key)
  FROM users WHERE id IN (SELECT rowid FROM users_names WHERE users_names MATCH ? LIMIT ?)`;

/**
 * The FTS5 query of the names one typo from a text may be: of the text's pieces (`similarPieces`),
 * all but one, any one. Each piece is a phrase of letters and the padding, with no quote to escape.
 */
export function similarMatch(text: string): string {
  const pieces = similarPieces(text).map((piece) => `"${piece.replaceAll('"', '""')}"`);
  if (pieces.length < 2) return pieces.join('');
  return pieces.map((_, left) => `(${pieces.filter((__, i) => i !== left).join(' AND ')})`).join(' OR ');
}

/** The row with the search keys of its names, and their compact keys (domain/search.ts). */
function withSearchKeys(row: Row): Row {
  row.family_key = searchKey(row.family_name as string | null);
  row.given_key = searchKey(row.given_name as string | null);
  row.family_compact = compactKey(row.family_name as string | null);
  row.given_compact = compactKey(row.given_name as string | null);
  return row;
}

/**
 * Migrations 19 and 24: the search keys of the users there were, a thousand at a time; from 24 on
 * (`compact`) with the compact keys, and computed anew, since the key of a name changed.
 */
function fillKeys(db: Database.Database, compact: boolean): void {
  const read = db.prepare('SELECT id, family_name, given_name FROM users WHERE id > ? ORDER BY id LIMIT 1000');
  const write = db.prepare(
    compact
      ? `UPDATE users SET family_key = @family_key, given_key = @given_key, family_compact = @family_compact,
          given_compact = @given_compact WHERE id = @id`
      : 'UPDATE users SET family_key = @family_key, given_key = @given_key WHERE id = @id',
  );
  for (let after = 0; ;) {
    const rows = read.all(after) as Row[];
    if (rows.length === 0) return;
    for (const row of rows) {
      const { family_key, given_key, family_compact, given_compact } = withSearchKeys({ ...row });
      write.run({ id: row.id, family_key, given_key, ...(compact ? { family_compact, given_compact } : {}) });
    }
    after = rows.at(-1)!.id as number;
  }
}

/** Migration 19: the search keys of the users there were. */
export const fillUserSearchKeys = (db: Database.Database): void => fillKeys(db, false);

/** Migration 24: the search keys anew, and the compact keys. */
export const fillUserCompactKeys = (db: Database.Database): void => fillKeys(db, true);
