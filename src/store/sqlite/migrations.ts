/**
 * The SQLite schema, as numbered migrations (see sql/migrations.ts). Column names of user profile
 * fields are derived from the attribute paths (see `columnOf`), and a store test checks them.
 */
import type Database from 'better-sqlite3';
import type { FillingMigration } from '../sql/migrations.js';
import { fillUserCompactKeys, fillUserSearchKeys } from './users.js';

export type SqliteMigration = FillingMigration<Database.Database, void> & {
  /**
   * The migration rebuilds a table others refer to (SQLite's way to drop a constraint: a new
   * table, the rows copied, the old one dropped, the new one renamed). Foreign keys are then off
   * while it runs, as SQLite's procedure requires (with them on, dropping the old table would
   * delete every row that refers to it, by their ON DELETE CASCADE), and checked before it commits.
   */
  rebuildsTables?: true;
};

export const sqliteMigrations: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'users, newsletters and subscriptions',
    sql: `
      CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        email TEXT NOT NULL,
        email_lower TEXT NOT NULL,
        email_domain TEXT NOT NULL,
        password_hash TEXT,
        family_name TEXT NOT NULL CHECK (length(trim(family_name)) > 0),
        honorific_prefix TEXT,
        given_name TEXT,
        additional_name TEXT,
        honorific_suffix TEXT,
        address_street_address TEXT,
        address_unit_number TEXT,
        address_address_locality TEXT,
        address_address_region TEXT,
        address_address_country TEXT,
        address_postal_code TEXT,
        circulation_number TEXT,
        internal_notes TEXT,
        job_title TEXT,
        works_for_legal_name TEXT,
        works_for_telephone TEXT,
        telephone TEXT,
        cell_number TEXT,
        fax_number TEXT,
        demographics TEXT CHECK (demographics IS NULL OR json_valid(demographics)),
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch())
      );
      CREATE UNIQUE INDEX users_email_lower ON users (email_lower);
      CREATE INDEX users_email_domain ON users (email_domain, id);
      CREATE INDEX users_circulation_number ON users (circulation_number, id);

      CREATE TABLE user_newsletters (
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        newsletter_id TEXT NOT NULL,
        PRIMARY KEY (user_id, newsletter_id)
      ) WITHOUT ROWID;

      CREATE TABLE subscriptions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        date_started INTEGER NOT NULL,
        date_ended INTEGER,
        external_identifier TEXT,
        license TEXT CHECK (license IN ('individual', 'free', 'site')),
        resource TEXT CHECK (resource IN ('online', 'print', 'print-online')),
        trial INTEGER NOT NULL CHECK (trial IN (0, 1)),
        expired INTEGER NOT NULL DEFAULT 0 CHECK (expired IN (0, 1)),
        product_id TEXT,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch()),
        CHECK (date_ended IS NULL OR date_ended >= date_started OR expired = 1)
      );
      CREATE INDEX subscriptions_user ON subscriptions (user_id, id);
    `,
  },
  {
    version: 2,
    name: 'API credentials and the audit trail',
    sql: `
      CREATE TABLE api_keys (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        scopes TEXT NOT NULL CHECK (json_valid(scopes) AND json_array_length(scopes) > 0),
        secret_hash BLOB NOT NULL,
        rate_limit INTEGER CHECK (rate_limit IS NULL OR rate_limit > 0),
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        revoked_at INTEGER
      );

      CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        occurred_at INTEGER NOT NULL DEFAULT (unixepoch()),
        actor TEXT,
        action TEXT NOT NULL,
        resource_type TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        user_id TEXT,
        attributes TEXT NOT NULL CHECK (json_valid(attributes))
      );
      CREATE INDEX audit_log_resource ON audit_log (resource_type, resource_id, id);
      CREATE INDEX audit_log_actor ON audit_log (actor, id);
    `,
  },
  {
    version: 3,
    name: 'row versions, for ETag and If-Match',
    sql: `
      ALTER TABLE users ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE subscriptions ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 4,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE idempotency_keys (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status integer,
        headers TEXT,
        body TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
    `,
  },
  {
    version: 5,
    name: 'events by user',
    sql: `
      CREATE INDEX audit_log_user ON audit_log (user_id, id);
    `,
  },
  {
    version: 6,
    name: 'subscriptions that lapse',
    sql: `
      CREATE INDEX subscriptions_lapsing ON subscriptions (date_ended) WHERE expired = 0;
    `,
  },
  {
    version: 7,
    name: 'webhooks, and a delivery for each event each webhook receives',
    sql: `
      CREATE TABLE webhooks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        url TEXT NOT NULL,
        events TEXT NOT NULL CHECK (json_valid(events) AND json_array_length(events) > 0),
        secret_salt TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch())
      );

      -- Instants in milliseconds: retries come seconds apart, or less.
      CREATE TABLE webhook_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id INTEGER NOT NULL REFERENCES audit_log (id) ON DELETE CASCADE,
        event_type TEXT NOT NULL,
        user_id TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        next_attempt_at INTEGER,
        locked_until INTEGER,
        last_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        delivered_at INTEGER,
        version INTEGER NOT NULL DEFAULT 1,
        UNIQUE (webhook_id, event_id)
      );
      CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, id);
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, user_id, event_id)
        WHERE state = 'pending';

      -- The outbox: every event gets its deliveries in the transaction that records it. A delivery
      -- queued behind others of its user is not due before the last of them (a hint that keeps
      -- waiting queues out of the claims' way; the claim itself checks the order).
      CREATE TRIGGER audit_log_webhook_deliveries AFTER INSERT ON audit_log
      WHEN NEW.resource_type IN ('users', 'subscriptions') AND NEW.action IN ('create', 'update', 'delete', 'expire')
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, created_at, next_attempt_at)
        SELECT w.id, NEW.id, t.event_type, NEW.user_id, t.now, max(t.now, coalesce((
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.user_id = NEW.user_id AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1), t.now))
        FROM webhooks w, (SELECT
            CASE NEW.resource_type WHEN 'users' THEN 'user' ELSE 'subscription' END || '.' ||
            CASE NEW.action WHEN 'create' THEN 'created' WHEN 'update' THEN 'updated'
              WHEN 'delete' THEN 'deleted' ELSE 'expired' END AS event_type,
            CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now) t
        WHERE EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = t.event_type);
      END;
    `,
  },
  {
    version: 8,
    name: 'credential versions, for ETag and If-Match',
    sql: `
      ALTER TABLE api_keys ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 9,
    name: 'each audit entry names the event it is; the outbox trigger and the event feed read it',
    sql: `
      ALTER TABLE audit_log ADD COLUMN event_type TEXT;
      UPDATE audit_log SET event_type =
        CASE resource_type WHEN 'users' THEN 'user' ELSE 'subscription' END || '.' ||
        CASE action WHEN 'create' THEN 'created' WHEN 'update' THEN 'updated'
          WHEN 'delete' THEN 'deleted' ELSE 'expired' END
      WHERE resource_type IN ('users', 'subscriptions') AND action IN ('create', 'update', 'delete', 'expire');
      CREATE INDEX audit_log_event_type ON audit_log (event_type, id) WHERE event_type IS NOT NULL;

      DROP TRIGGER audit_log_webhook_deliveries;
      CREATE TRIGGER audit_log_webhook_deliveries AFTER INSERT ON audit_log
      WHEN NEW.event_type IS NOT NULL
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, created_at, next_attempt_at)
        SELECT w.id, NEW.id, NEW.event_type, NEW.user_id, t.now, max(t.now, coalesce((
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.user_id = NEW.user_id AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1), t.now))
        FROM webhooks w, (SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now) t
        WHERE EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = NEW.event_type);
      END;
    `,
  },
  {
    version: 10,
    name: 'readers sign in: the last sign-in of each user, attempts per email, password reset tokens',
    sql: `
      ALTER TABLE users ADD COLUMN last_sign_in_at INTEGER;

      -- The sign-in attempts counted for an email (lower-cased) in the window that began with the
      -- first of them (epoch seconds). Personal data: erasing the user removes their row.
      CREATE TABLE sign_in_attempts (
        email_lower TEXT PRIMARY KEY,
        attempts INTEGER NOT NULL CHECK (attempts > 0),
        window_started_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX sign_in_attempts_window ON sign_in_attempts (window_started_at);

      -- Only a SHA-256 of each token's random part is kept. Instants in epoch seconds.
      CREATE TABLE password_reset_tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_hash BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX password_reset_tokens_hash ON password_reset_tokens (user_id, token_hash);
      CREATE INDEX password_reset_tokens_expiry ON password_reset_tokens (expires_at);
    `,
  },
  {
    version: 11,
    name: 'products and newsletters as records, which subscriptions and memberships refer to',
    sql: `
      CREATE TABLE products (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL CHECK (length(name) > 0),
        description TEXT,
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        resource TEXT CHECK (resource IN ('online', 'print', 'print-online')),
        license TEXT CHECK (license IN ('individual', 'free', 'site')),
        version INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch())
      );
      CREATE INDEX products_active ON products (active, id);

      CREATE TABLE newsletters (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL CHECK (length(name) > 0),
        description TEXT,
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        version INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch())
      );
      CREATE INDEX newsletters_active ON newsletters (active, id);

      -- Every id already in use becomes a record named after itself, so no reference dangles.
      INSERT INTO products (id, name)
        SELECT DISTINCT product_id, product_id FROM subscriptions WHERE product_id IS NOT NULL;
      INSERT INTO newsletters (id, name) SELECT DISTINCT newsletter_id, newsletter_id FROM user_newsletters;

      -- The references hold as foreign keys would. SQLite adds a foreign key to a table only by
      -- rebuilding it, which would copy every subscription and fix the table's columns as this
      -- migration knows them; triggers hold the same rule (SQLite's own foreign keys are triggers
      -- of this kind) on the tables as they are.
      CREATE TRIGGER subscriptions_product_exists_insert BEFORE INSERT ON subscriptions
      WHEN NEW.product_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM products WHERE id = NEW.product_id)
      BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: subscriptions.product_id'); END;
      CREATE TRIGGER subscriptions_product_exists_update BEFORE UPDATE OF product_id ON subscriptions
      WHEN NEW.product_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM products WHERE id = NEW.product_id)
      BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: subscriptions.product_id'); END;
      CREATE TRIGGER products_unreferenced_delete BEFORE DELETE ON products
      WHEN EXISTS (SELECT 1 FROM subscriptions WHERE product_id = OLD.id)
      BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: subscriptions.product_id'); END;
      CREATE TRIGGER products_id_kept BEFORE UPDATE OF id ON products WHEN NEW.id IS NOT OLD.id
      BEGIN SELECT RAISE(ABORT, 'a product keeps its id'); END;

      CREATE TRIGGER user_newsletters_newsletter_exists_insert BEFORE INSERT ON user_newsletters
      WHEN NOT EXISTS (SELECT 1 FROM newsletters WHERE id = NEW.newsletter_id)
      BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: user_newsletters.newsletter_id'); END;
      CREATE TRIGGER user_newsletters_newsletter_exists_update BEFORE UPDATE OF newsletter_id ON user_newsletters
      WHEN NOT EXISTS (SELECT 1 FROM newsletters WHERE id = NEW.newsletter_id)
      BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: user_newsletters.newsletter_id'); END;
      CREATE TRIGGER newsletters_unreferenced_delete BEFORE DELETE ON newsletters
      WHEN EXISTS (SELECT 1 FROM user_newsletters WHERE newsletter_id = OLD.id)
      BEGIN SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed: user_newsletters.newsletter_id'); END;
      CREATE TRIGGER newsletters_id_kept BEFORE UPDATE OF id ON newsletters WHEN NEW.id IS NOT OLD.id
      BEGIN SELECT RAISE(ABORT, 'a newsletter keeps its id'); END;

      -- Who has an active subscription of a product, or giving a resource, and who is on a
      -- newsletter: each an index seek in user order (and the counts a record's meta gives).
      CREATE INDEX subscriptions_product ON subscriptions (product_id, expired, user_id, date_started, date_ended);
      CREATE INDEX subscriptions_resource
        ON subscriptions (resource, expired, user_id, date_started, date_ended, product_id);
      CREATE INDEX user_newsletters_newsletter ON user_newsletters (newsletter_id, user_id);
    `,
  },
  {
    version: 12,
    name: 'deliveries of events without a user, queued by the record they are about',
    sql: `
      -- A delivery's queue is what its order is kept within: a user (their events and their
      -- subscriptions') or, for an event without a user, the record it is about. user_id may
      -- now be NULL, which SQLite allows only in a table made anew.
      DROP TRIGGER audit_log_webhook_deliveries;
      CREATE TABLE webhook_deliveries_queued (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id INTEGER NOT NULL REFERENCES audit_log (id) ON DELETE CASCADE,
        event_type TEXT NOT NULL,
        user_id TEXT,
        queue TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        next_attempt_at INTEGER,
        locked_until INTEGER,
        last_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        delivered_at INTEGER,
        version INTEGER NOT NULL DEFAULT 1,
        UNIQUE (webhook_id, event_id)
      );
      INSERT INTO webhook_deliveries_queued (id, webhook_id, event_id, event_type, user_id, queue, state, attempts,
          created_at, next_attempt_at, locked_until, last_attempt_at, last_status, last_error, delivered_at, version)
        SELECT id, webhook_id, event_id, event_type, user_id, 'users/' || user_id, state, attempts, created_at,
          next_attempt_at, locked_until, last_attempt_at, last_status, last_error, delivered_at, version
        FROM webhook_deliveries;
      DROP TABLE webhook_deliveries;
      ALTER TABLE webhook_deliveries_queued RENAME TO webhook_deliveries;
      CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, id);
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, queue, event_id)
        WHERE state = 'pending';

      CREATE TRIGGER audit_log_webhook_deliveries AFTER INSERT ON audit_log
      WHEN NEW.event_type IS NOT NULL
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, queue, created_at, next_attempt_at)
        SELECT w.id, NEW.id, NEW.event_type, NEW.user_id, t.queue, t.now, max(t.now, coalesce((
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.queue = t.queue AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1), t.now))
        FROM webhooks w, (SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now,
            coalesce('users/' || NEW.user_id, NEW.resource_type || '/' || NEW.resource_id) AS queue) t
        WHERE EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = NEW.event_type);
      END;
    `,
  },
  {
    version: 13,
    name: 'kept responses name their reader, and go when the reader is erased',
    sql: `
      -- Kept responses were fingerprinted with a bare SHA-256 of requests that held passwords, and
      -- named no reader, so erasing one left their data here: they go (a retry of a request made
      -- before this release runs anew), and from now on each names the reader whose data it holds.
      DELETE FROM idempotency_keys;
      ALTER TABLE idempotency_keys ADD COLUMN user_id INTEGER REFERENCES users (id) ON DELETE CASCADE;
      CREATE INDEX idempotency_keys_user ON idempotency_keys (user_id) WHERE user_id IS NOT NULL;
    `,
  },
  {
    version: 14,
    name: 'deliveries by event, for retention',
    sql: `
      -- Removing an old audit entry removes its deliveries (the foreign key cascades), and retention
      -- asks whether an entry has a delivery pending: both find the deliveries of an event here.
      CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, state);
    `,
  },
  {
    version: 15,
    name: 'each email in a table of its own, keyed by the lower-cased address',
    sql: `
      -- Nothing on SQLite: one file, where the unique index on users (email_lower) holds alone.
      -- PostgreSQL gains the table that keeps emails unique across Citus shards.
      SELECT 1;
    `,
  },
  {
    version: 16,
    name: 'staff, who use the console, and their sessions',
    sql: `
      -- The publisher's people: not readers, not API credentials. Instants in epoch seconds.
      CREATE TABLE staff (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        email TEXT NOT NULL,
        email_lower TEXT NOT NULL,
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        role TEXT NOT NULL CHECK (role IN ('agent', 'supervisor', 'admin')),
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        disabled_at INTEGER,
        version INTEGER NOT NULL DEFAULT 1
      );
      CREATE UNIQUE INDEX staff_email_lower ON staff (email_lower);

      -- Only a SHA-256 of each session id is kept; a session ends when it is idle too long.
      CREATE TABLE staff_sessions (
        id_hash BLOB PRIMARY KEY,
        staff_id INTEGER NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
      CREATE INDEX staff_sessions_last_seen ON staff_sessions (last_seen_at);
    `,
  },
  {
    version: 17,
    name: 'outbox instants floored to the millisecond',
    sql: `
      -- Nothing on SQLite: CAST(unixepoch('subsec') * 1000 AS INTEGER) already truncates, as a
      -- dispatcher's Date.now() does. PostgreSQL's trigger rounded, putting a delivery up to half a
      -- millisecond in the future of the clock that claims it.
      SELECT 1;
    `,
  },
  {
    version: 18,
    name: 'the start still to come of a subscription, so that scheduled ones stay out of the way',
    sql: `
      -- Who has an active subscription giving a resource is read in user order from an index. When
      -- most subscriptions of a resource have not begun (renewals booked ahead), a seek over all of
      -- them walks the scheduled ones to find none, so that index leaves out the subscriptions with
      -- a start still to come: pending_start, dateStarted while it is in the future, set on every
      -- write and cleared by the lapse job once it has passed. Those whose start has passed but is
      -- not yet cleared are few, and found by subscriptions_pending_start: an answer never depends
      -- on when the job last ran.
      ALTER TABLE subscriptions ADD COLUMN pending_start INTEGER
        CHECK (pending_start IS NULL OR pending_start = date_started);
      UPDATE subscriptions SET pending_start = date_started WHERE date_started > unixepoch();
      DROP INDEX subscriptions_resource;
      CREATE INDEX subscriptions_resource
        ON subscriptions (resource, expired, user_id, date_started, date_ended, product_id, pending_start)
        WHERE pending_start IS NULL;
      CREATE INDEX subscriptions_pending_start ON subscriptions (pending_start) WHERE pending_start IS NOT NULL;
      -- A product's subscriptions likewise: started ones (pending_start IS NULL) in user order, then
      -- by the start still to come.
      DROP INDEX subscriptions_product;
      CREATE INDEX subscriptions_product
        ON subscriptions (product_id, expired, pending_start, user_id, date_started, date_ended);
    `,
  },
  {
    version: 19,
    name: 'search keys of the names, for finding a reader',
    sql: `
      -- Each name lower-cased without accents (domain/search.ts), kept beside it by every write:
      -- a search is a range of one of these indexes, or of users_email_lower, never a scan.
      ALTER TABLE users ADD COLUMN family_key TEXT;
      ALTER TABLE users ADD COLUMN given_key TEXT;
    `,
    fill: fillUserSearchKeys,
  },
  {
    version: 20,
    name: 'the search keys indexed',
    sql: `
      -- Built once the keys are filled, so that filling them does not also write every index.
      CREATE INDEX users_family_key ON users (family_key, id);
      CREATE INDEX users_given_key ON users (given_key, id);
    `,
  },
  {
    version: 21,
    name: 'subscriptions by when they started and ended, for the dashboard',
    sql: `
      -- The dashboard's counts, each from an index rather than the table: the subscriptions not
      -- expired by resource and product (with their dates, to tell the active ones), and the
      -- starts and ends of each week (an end of any subscription, lapsed or not: the lapsing index
      -- has only those not expired).
      CREATE INDEX subscriptions_current ON subscriptions (resource, product_id, date_started, date_ended)
        WHERE expired = false;
      CREATE INDEX subscriptions_started ON subscriptions (date_started);
      CREATE INDEX subscriptions_ended ON subscriptions (date_ended);
    `,
  },
  {
    version: 22,
    name: "a user's subscriptions indexed with what the access check reads",
    sql: `
      -- The access check, the hottest read there is, answers from this index alone: a user's
      -- subscriptions with their state, dates, resource and product, without a visit to the
      -- table for each (13 → 8 µs a check at 10,000 users, what reading one subscription by its
      -- key costs). Still in (user_id, id) order for every other read of it. A change of those
      -- columns now rewrites its entry: one more page for an update or an expiry.
      DROP INDEX subscriptions_user;
      CREATE INDEX subscriptions_user
        ON subscriptions (user_id, id, expired, date_started, date_ended, resource, product_id);
    `,
  },
  {
    version: 23,
    name: 'who has an active subscription, read by keys of what it gives once it has started',
    sql: `
      -- The keys PostgreSQL's migration 23 indexes, so that one query serves both stores: one key
      -- of whether a subscription has started (pending_start null, migration 18) and what it gives,
      -- null while its start is to come: the resource it names, or else '/' and its product's id;
      -- and the product it is of. Held equal, each is read in user order past it, product by
      -- product for those without a resource, where SQLite walked all of those to find the ones
      -- whose product gives what was asked.
      DROP INDEX subscriptions_resource;
      CREATE INDEX subscriptions_resource ON subscriptions
        ((CASE WHEN pending_start IS NULL THEN coalesce(resource, '/' || product_id) END), expired, user_id,
          date_started, date_ended);
      -- Led still by the product, for the foreign key's check and the count of what refers to one.
      DROP INDEX subscriptions_product;
      CREATE INDEX subscriptions_product ON subscriptions
        (product_id, (CASE WHEN pending_start IS NULL THEN product_id END), expired, user_id, date_started, date_ended);
    `,
  },
  {
    version: 24,
    name: 'compact keys of the names, and their keys anew',
    sql: `
      -- A name's key now writes ø, ł, æ … as callers type them (domain/search.ts), so every key is
      -- computed anew; beside it, where it differs, the key without apostrophes, hyphens and spaces
      -- ("obrien" for O'Brien). The keys' indexes go first, so that filling does not write them.
      DROP INDEX users_family_key;
      DROP INDEX users_given_key;
      ALTER TABLE users ADD COLUMN family_compact TEXT;
      ALTER TABLE users ADD COLUMN given_compact TEXT;
    `,
    fill: fillUserCompactKeys,
  },
  {
    version: 25,
    name: 'the names indexed for a search as callers speak',
    sql: `
      CREATE INDEX users_family_key ON users (family_key, id);
      CREATE INDEX users_given_key ON users (given_key, id);
      -- Only the names with a compact key of their own: most have none.
      CREATE INDEX users_family_compact ON users (family_compact, id) WHERE family_compact IS NOT NULL;
      CREATE INDEX users_given_compact ON users (given_compact, id) WHERE given_compact IS NOT NULL;
      -- A name one typo from the text is found by the trigrams of both names, each compact and
      -- padded '^^name$$' so that its start and end are trigrams of their own (domain/search.ts,
      -- similarPieces), kept by triggers whatever writes the users. secure-delete: an erased
      -- reader's name leaves the index with the row, as secure_delete zeroes it in the table.
      CREATE VIRTUAL TABLE users_names USING fts5(names, tokenize = 'trigram');
      INSERT INTO users_names (users_names, rank) VALUES ('secure-delete', 1);
      INSERT INTO users_names (rowid, names)
        SELECT id, '^^' || coalesce(new.family_compact, new.family_key, '') || '$$ ^^' ||
          coalesce(new.given_compact, new.given_key, '') || '$$' FROM users AS new;
      CREATE TRIGGER users_names_insert AFTER INSERT ON users BEGIN
        INSERT INTO users_names (rowid, names) VALUES (new.id, '^^' || coalesce(new.family_compact, new.family_key, '') || '$$ ^^' ||
          coalesce(new.given_compact, new.given_key, '') || '$$');
      END;
      CREATE TRIGGER users_names_update AFTER UPDATE OF family_key, given_key, family_compact, given_compact ON users
        WHEN old.family_key IS NOT new.family_key OR old.given_key IS NOT new.given_key
          OR old.family_compact IS NOT new.family_compact OR old.given_compact IS NOT new.given_compact
      BEGIN
        DELETE FROM users_names WHERE rowid = old.id;
        INSERT INTO users_names (rowid, names) VALUES (new.id, '^^' || coalesce(new.family_compact, new.family_key, '') || '$$ ^^' ||
          coalesce(new.given_compact, new.given_key, '') || '$$');
      END;
      CREATE TRIGGER users_names_delete AFTER DELETE ON users BEGIN
        DELETE FROM users_names WHERE rowid = old.id;
      END;
    `,
  },
  {
    version: 26,
    name: 'delivery days of products and subscriptions',
    sql: `
      -- The weekdays a print product is delivered on, and those a subscription keeps of them, as a
      -- mask (Monday the lowest bit, domain/delivery-days.ts): "delivered on this date" is one AND.
      -- A subscription without its own takes every one of its product's.
      ALTER TABLE products ADD COLUMN delivery_days INTEGER NOT NULL DEFAULT 127
        CHECK (delivery_days BETWEEN 1 AND 127);
      ALTER TABLE subscriptions ADD COLUMN delivery_days INTEGER
        CHECK (delivery_days IS NULL OR delivery_days BETWEEN 1 AND 127);
    `,
  },
  {
    version: 27,
    name: 'holds',
    sql: `
      -- A subscription's deliveries stopped from one publication date to another (both included,
      -- as day numbers since 1970-01-01: domain/publication.ts). Withdrawn rather than deleted.
      -- The rules read a subscription's holds by its key, and the print run asks of each
      -- subscription whether a hold covers the date: both a seek on (user_id, subscription_id).
      CREATE TABLE holds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
        start_date INTEGER NOT NULL,
        end_date INTEGER NOT NULL CHECK (end_date >= start_date),
        compensation TEXT NOT NULL CHECK (compensation IN ('extend', 'credit', 'donate')),
        deliveries_missed INTEGER NOT NULL CHECK (deliveries_missed >= 0),
        extended_days INTEGER NOT NULL DEFAULT 0 CHECK (extended_days >= 0),
        withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch()),
        version INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX holds_subscription ON holds (user_id, subscription_id, start_date, end_date, withdrawn);
    `,
  },
  {
    version: 28,
    name: 'temporary addresses',
    sql: `
      -- Where a reader's print goes from one publication date to another (both included, as day
      -- numbers since 1970-01-01: domain/publication.ts) instead of their own address; the address
      -- in the columns a user's has. A reader's never overlap (the rules see to it, in a write
      -- transaction), so the print run finds the one in force by a seek on (user_id, start_date).
      CREATE TABLE temporary_addresses (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        start_date INTEGER NOT NULL,
        end_date INTEGER NOT NULL CHECK (end_date >= start_date),
        address_street_address TEXT,
        address_unit_number TEXT,
        address_address_locality TEXT,
        address_address_region TEXT,
        address_address_country TEXT,
        address_postal_code TEXT,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch()),
        version INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX temporary_addresses_user ON temporary_addresses (user_id, start_date, end_date);
    `,
  },
  {
    version: 29,
    name: 'delivery complaints',
    sql: `
      -- A reader's complaint of one delivery (a subscription and a publication date, as a day
      -- number), one per subscription and date (the unique index). A redelivery is on the run of
      -- redelivery_date: the print run reads a date's redeliveries first (a few rows, by the partial
      -- index) and joins them to its subscriptions.
      CREATE TABLE delivery_complaints (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
        delivery_date INTEGER NOT NULL,
        reason TEXT NOT NULL
          CHECK (reason IN ('missed', 'damaged', 'wet', 'late', 'incomplete', 'wrong-address')),
        remedy TEXT NOT NULL CHECK (remedy IN ('redeliver', 'extend', 'none')),
        is_repeat INTEGER NOT NULL CHECK (is_repeat IN (0, 1)),
        redelivery_date INTEGER CHECK ((remedy = 'redeliver') = (redelivery_date IS NOT NULL)),
        created_at INTEGER NOT NULL DEFAULT (unixepoch())
      );
      CREATE UNIQUE INDEX delivery_complaints_date ON delivery_complaints (user_id, subscription_id, delivery_date);
      CREATE INDEX delivery_complaints_redelivery ON delivery_complaints (redelivery_date, user_id, subscription_id)
        WHERE redelivery_date IS NOT NULL;
    `,
  },
  {
    version: 30,
    name: 'newsletter consents, their history, and double opt-in',
    sql: `
      -- For each newsletter a reader ever had, where their consent stands, and every change of it
      -- (domain/consent.ts). user_newsletters stays the members (the consents in 'subscribed'),
      -- kept in the same transaction as every consent change, so that a reader's newsletters, a
      -- newsletter's members and their count read one table by its index, as before. No foreign
      -- key to newsletters: a consent, and a suppression, outlive the newsletter's record.
      CREATE TABLE newsletter_consents (
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        newsletter_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'subscribed', 'unsubscribed', 'bounced', 'complained')),
        source TEXT NOT NULL CHECK (source IN ('api', 'console', 'import', 'confirmation', 'unsubscribe-link', 'email-provider')),
        changed_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, newsletter_id)
      ) WITHOUT ROWID;
      -- Never an address or a user agent: the state, how it came, who made it (as the audit trail
      -- names actors) and when.
      CREATE TABLE newsletter_consent_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        newsletter_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'subscribed', 'unsubscribed', 'bounced', 'complained')),
        source TEXT NOT NULL CHECK (source IN ('api', 'console', 'import', 'confirmation', 'unsubscribe-link', 'email-provider')),
        actor TEXT,
        changed_at INTEGER NOT NULL
      );
      CREATE INDEX newsletter_consent_changes_consent ON newsletter_consent_changes (user_id, newsletter_id, id);

      -- Every membership there is becomes a subscribed consent of source 'import' (brought from
      -- before the ledger), changed when the audit trail last saw the reader's newsletters sent
      -- (their creation or an update naming newsletters), else when the reader was created: the
      -- data holds no time of its own for a membership.
      INSERT INTO newsletter_consents (user_id, newsletter_id, state, source, changed_at)
        SELECT m.user_id, m.newsletter_id, 'subscribed', 'import', coalesce(
            (SELECT max(a.occurred_at) FROM audit_log a
             WHERE a.user_id = CAST(m.user_id AS TEXT) AND a.resource_type = 'users' AND a.action IN ('create', 'update')
               AND EXISTS (SELECT 1 FROM json_each(a.attributes) WHERE value = 'newsletters')),
            u.created_at)
        FROM user_newsletters m JOIN users u ON u.id = m.user_id;
      INSERT INTO newsletter_consent_changes (user_id, newsletter_id, state, source, actor, changed_at)
        SELECT user_id, newsletter_id, state, source, 'migration', changed_at FROM newsletter_consents
        ORDER BY user_id, newsletter_id;

      -- A newsletter that asks an added reader to confirm first.
      ALTER TABLE newsletters ADD COLUMN double_opt_in INTEGER NOT NULL DEFAULT 0 CHECK (double_opt_in IN (0, 1));
      -- Of a consent change's entry (and event): its old and new state and source, words of
      -- domain/consent.ts only, never a reader's value.
      ALTER TABLE audit_log ADD COLUMN consent_change TEXT CHECK (consent_change IS NULL OR json_valid(consent_change));
    `,
  },
  {
    version: 31,
    name: 'site licences: their networks, email domains and seats',
    sql: `
      -- A site licence's terms as written (site-licence.ts), for reading the subscription back: the
      -- ranges and domains as JSON arrays, null for none.
      ALTER TABLE subscriptions ADD COLUMN ip_ranges TEXT CHECK (ip_ranges IS NULL OR json_valid(ip_ranges));
      ALTER TABLE subscriptions ADD COLUMN email_domains TEXT
        CHECK (email_domains IS NULL OR json_valid(email_domains));
      ALTER TABLE subscriptions ADD COLUMN seats INTEGER CHECK (seats IS NULL OR seats >= 1);
      -- The same terms as keys to find the licences by, written with the subscription. A range is
      -- (prefix length, network): an address asks for its network at each prefix length a range may
      -- have, each an exact probe of the primary key, whatever the number of licences and however
      -- their ranges overlap. The network is 4 bytes (IPv4) or 16 (IPv6), so a prefix length names
      -- one family's keys. No foreign key: on Citus these are reference tables, which cannot refer to
      -- the sharded subscriptions; every write and erasure of a subscription writes them itself.
      CREATE TABLE site_ranges (
        prefix_length INTEGER NOT NULL,
        network BLOB NOT NULL,
        family INTEGER NOT NULL CHECK (family IN (4, 6)),
        user_id INTEGER NOT NULL,
        subscription_id INTEGER NOT NULL,
        PRIMARY KEY (prefix_length, network, user_id, subscription_id),
        CHECK (length(network) = CASE family WHEN 4 THEN 4 ELSE 16 END),
        CHECK (prefix_length BETWEEN CASE family WHEN 4 THEN 8 ELSE 32 END AND CASE family WHEN 4 THEN 32 ELSE 128 END)
      ) WITHOUT ROWID;
      CREATE INDEX site_ranges_subscription ON site_ranges (user_id, subscription_id);
      -- A domain as written: acme.com exactly, *.acme.com for every domain below it; a reader's
      -- domain asks for itself and for the wildcard of each of its parents.
      CREATE TABLE site_domains (
        domain TEXT NOT NULL,
        user_id INTEGER NOT NULL,
        subscription_id INTEGER NOT NULL,
        PRIMARY KEY (domain, user_id, subscription_id)
      ) WITHOUT ROWID;
      CREATE INDEX site_domains_subscription ON site_domains (user_id, subscription_id);
    `,
  },
  {
    version: 32,
    name: 'a blank family name may be imported',
    rebuildsTables: true,
    sql: `
      -- Whether a family name may be blank is the interface's rule, kept by the API; an import
      -- may take one (--allow-blank-family-name). SQLite drops a CHECK only by rebuilding the table
      -- (its 12-step procedure; foreign keys are off meanwhile, see rebuildsTables): every column
      -- as it was, in its order, with its type, NOT NULL, default and the other CHECK; the rows
      -- with their ids; AUTOINCREMENT's high-water mark, so that no id is given twice; then the
      -- indexes and the search triggers as migrations 1, 20 and 25 made them. Every table that
      -- refers to users names it, and so refers to the new table once it is renamed; the names'
      -- trigram index (users_names) is keyed by the ids, which are kept.
      CREATE TABLE users_rebuilt (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        email TEXT NOT NULL,
        email_lower TEXT NOT NULL,
        email_domain TEXT NOT NULL,
        password_hash TEXT,
        family_name TEXT NOT NULL,
        honorific_prefix TEXT,
        given_name TEXT,
        additional_name TEXT,
        honorific_suffix TEXT,
        address_street_address TEXT,
        address_unit_number TEXT,
        address_address_locality TEXT,
        address_address_region TEXT,
        address_address_country TEXT,
        address_postal_code TEXT,
        circulation_number TEXT,
        internal_notes TEXT,
        job_title TEXT,
        works_for_legal_name TEXT,
        works_for_telephone TEXT,
        telephone TEXT,
        cell_number TEXT,
        fax_number TEXT,
        demographics TEXT CHECK (demographics IS NULL OR json_valid(demographics)),
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch()),
        version INTEGER NOT NULL DEFAULT 1,
        last_sign_in_at INTEGER,
        family_key TEXT,
        given_key TEXT,
        family_compact TEXT,
        given_compact TEXT
      );
      INSERT INTO users_rebuilt SELECT
        id, email, email_lower, email_domain, password_hash, family_name, honorific_prefix, given_name,
        additional_name, honorific_suffix, address_street_address, address_unit_number,
        address_address_locality, address_address_region, address_address_country, address_postal_code,
        circulation_number, internal_notes, job_title, works_for_legal_name, works_for_telephone, telephone,
        cell_number, fax_number, demographics, created_at, updated_at, version, last_sign_in_at, family_key,
        given_key, family_compact, given_compact
      FROM users ORDER BY id;
      DELETE FROM sqlite_sequence WHERE name = 'users_rebuilt';
      INSERT INTO sqlite_sequence (name, seq) SELECT 'users_rebuilt', seq FROM sqlite_sequence WHERE name = 'users';
      DROP TABLE users;
      ALTER TABLE users_rebuilt RENAME TO users;

      CREATE UNIQUE INDEX users_email_lower ON users (email_lower);
      CREATE INDEX users_email_domain ON users (email_domain, id);
      CREATE INDEX users_circulation_number ON users (circulation_number, id);
      CREATE INDEX users_family_key ON users (family_key, id);
      CREATE INDEX users_given_key ON users (given_key, id);
      CREATE INDEX users_family_compact ON users (family_compact, id) WHERE family_compact IS NOT NULL;
      CREATE INDEX users_given_compact ON users (given_compact, id) WHERE given_compact IS NOT NULL;

      CREATE TRIGGER users_names_insert AFTER INSERT ON users BEGIN
        INSERT INTO users_names (rowid, names) VALUES (new.id, '^^' || coalesce(new.family_compact, new.family_key, '') || '$$ ^^' ||
          coalesce(new.given_compact, new.given_key, '') || '$$');
      END;
      CREATE TRIGGER users_names_update AFTER UPDATE OF family_key, given_key, family_compact, given_compact ON users
        WHEN old.family_key IS NOT new.family_key OR old.given_key IS NOT new.given_key
          OR old.family_compact IS NOT new.family_compact OR old.given_compact IS NOT new.given_compact
      BEGIN
        DELETE FROM users_names WHERE rowid = old.id;
        INSERT INTO users_names (rowid, names) VALUES (new.id, '^^' || coalesce(new.family_compact, new.family_key, '') || '$$ ^^' ||
          coalesce(new.given_compact, new.given_key, '') || '$$');
      END;
      CREATE TRIGGER users_names_delete AFTER DELETE ON users BEGIN
        DELETE FROM users_names WHERE rowid = old.id;
      END;
    `,
  },
  {
    version: 33,
    name: 'seats of site licences, and their holders',
    sql: `
      -- A seat is its licence owner's record (user_id), naming the reader given it (holder_id).
      -- Every foreign key cascades, so a licence deleted, its owner erased or its holder erased
      -- takes the seat with it. A reader holds one seat of a licence at most.
      CREATE TABLE seats (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
        holder_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        UNIQUE (user_id, subscription_id, holder_id)
      );
      CREATE INDEX seats_subscription ON seats (subscription_id, id);
      CREATE INDEX seats_holder ON seats (holder_id);
      -- The same seat as a key of its holder's (user_id), which the holder's access check reads by
      -- their id: on Citus it sits on the holder's shard, where the seat itself sits on the owner's.
      CREATE TABLE seat_holders (
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        owner_id INTEGER NOT NULL,
        subscription_id INTEGER NOT NULL,
        seat_id INTEGER NOT NULL REFERENCES seats (id) ON DELETE CASCADE,
        PRIMARY KEY (user_id, owner_id, subscription_id)
      ) WITHOUT ROWID;
      CREATE INDEX seat_holders_seat ON seat_holders (seat_id);
    `,
  },
  {
    version: 34,
    name: 'usage of site licences by month',
    sql: `
      -- The access checks a licence granted, per calendar month (YYYY-MM, UTC) and way (domain/
      -- licence-usage.ts), added to in batches by every process.
      CREATE TABLE licence_usage (
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        subscription_id INTEGER NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
        month TEXT NOT NULL CHECK (month GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]'),
        via TEXT NOT NULL CHECK (via IN ('ip', 'email-domain', 'seat')),
        checks INTEGER NOT NULL CHECK (checks >= 0),
        PRIMARY KEY (user_id, subscription_id, month, via)
      ) WITHOUT ROWID;
      CREATE INDEX licence_usage_subscription ON licence_usage (subscription_id);
    `,
  },
  {
    version: 35,
    name: 'privacy requests',
    sql: `
      -- What a reader asked under data protection law (domain/privacy-request.ts), instants in epoch
      -- seconds. No foreign key to users: a request outlives its reader (on Citus this is a local
      -- table, which cannot refer to the sharded users): erasing the reader clears user_id and notes
      -- itself, and marks the request fulfilled. The console lists the open ones by due date.
      CREATE TABLE privacy_requests (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER,
        kind TEXT NOT NULL CHECK (kind IN ('access', 'erasure', 'rectification', 'objection')),
        received_at INTEGER NOT NULL,
        due_at INTEGER NOT NULL,
        completed_at INTEGER CHECK (completed_at IS NULL OR completed_at >= received_at),
        notes TEXT,
        reader_erased_at INTEGER,
        created_at INTEGER NOT NULL DEFAULT (unixepoch()),
        updated_at INTEGER NOT NULL DEFAULT (unixepoch()),
        version INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX privacy_requests_due ON privacy_requests (due_at, id);
      CREATE INDEX privacy_requests_open ON privacy_requests (due_at, id) WHERE completed_at IS NULL;
      CREATE INDEX privacy_requests_user ON privacy_requests (user_id) WHERE user_id IS NOT NULL;
    `,
  },
  {
    version: 36,
    name: 'the print run walked in subscription order',
    sql: `
      -- Nothing to change here: a page of the print run walks the subscriptions by their id, the
      -- table's own key. PostgreSQL, whose key leads with the user, gains an index of the id.
    `,
  },
  {
    version: 37,
    name: 'the print run of a date to come walks what may be delivered',
    sql: `
      -- A page of a run to come walks, in id order, only the subscriptions its date may deliver by
      -- their own row (sql/deliveries.ts): not expired, and giving print or naming no resource (a
      -- product's, which the page's statement then asks of the products). The terms are written
      -- as the statement writes them, for a planner uses a partial index whose terms it finds there.
      CREATE INDEX subscriptions_print_run ON subscriptions (id)
        WHERE expired = false AND (resource IS NULL OR resource IN ('print', 'print-online'));
    `,
  },
  {
    version: 38,
    name: 'subscriptions marked by whether they give print',
    sql: `
      -- Whether a subscription gives print, by its own resource or else by its product's, kept on
      -- its row (sql/subscriptions.ts, givesPrintValue) so that a run to come walks only those,
      -- not every subscription of a product giving only online. Every write of a subscription sets
      -- it, and a product that starts or stops giving print sets it on those that name no resource
      -- of their own and are not expired (sqlite/products.ts), a batch of them at a time: while
      -- it marks them, it counts in marking_print, and a subscription written meanwhile is marked
      -- as giving print. The run still asks the product, so a mark left set would cost a step,
      -- never a wrong delivery.
      ALTER TABLE subscriptions ADD COLUMN gives_print INTEGER NOT NULL DEFAULT 0 CHECK (gives_print IN (0, 1));
      ALTER TABLE products ADD COLUMN marking_print INTEGER NOT NULL DEFAULT 0 CHECK (marking_print >= 0);
      UPDATE subscriptions SET gives_print = 1
        WHERE resource IN ('print', 'print-online')
          OR (resource IS NULL AND product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')));
      DROP INDEX subscriptions_print_run;
      CREATE INDEX subscriptions_print_run ON subscriptions (id) WHERE gives_print = true AND expired = false;
    `,
  },
  {
    version: 39,
    name: "users' JSON text kept on their rows",
    sql: `
      -- What a user's row alone writes of its JSON text (sql/user-json.ts), kept on the row so
      -- that a page of users reads it rather than writing it again. Triggers made when the
      -- database is opened (sqlite/user-text.ts) write it, after this migration and whenever the
      -- release renders a user otherwise; until then a column is NULL.
      ALTER TABLE users ADD COLUMN json_text_0 TEXT;
      ALTER TABLE users ADD COLUMN json_text_1 TEXT;
    `,
  },
  {
    version: 40,
    name: 'the print runs of the next dates kept',
    sql: `
      -- The runs of the next dates, kept as a page reads them (sql/kept-runs.ts): a run's row
      -- says its date (a day number), what its statement reads of it, and how far its build is;
      -- a kept delivery is its text, with what a page filters by. Triggers made when the database
      -- is opened (sqlite/kept-runs.ts) keep the rows of a reader whose deliveries a write may
      -- change. The rows are in (date, subscription) order, for a page reads them so.
      CREATE TABLE kept_runs (
        date INTEGER PRIMARY KEY,
        date_text TEXT NOT NULL,
        starts_at INTEGER NOT NULL,
        ends_at INTEGER NOT NULL,
        weekday_bit INTEGER NOT NULL,
        state INTEGER NOT NULL CHECK (state IN (0, 1, 2)),
        claimed_at INTEGER NOT NULL
      );
      CREATE TABLE kept_deliveries (
        date INTEGER NOT NULL,
        subscription_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        product_id TEXT,
        postal_code TEXT,
        json TEXT NOT NULL,
        PRIMARY KEY (date, subscription_id)
      ) WITHOUT ROWID;
      CREATE INDEX kept_deliveries_user ON kept_deliveries (user_id);
      CREATE INDEX kept_deliveries_product ON kept_deliveries (date, product_id, subscription_id);
      CREATE INDEX kept_deliveries_postal_code ON kept_deliveries (date, postal_code, subscription_id);
    `,
  },
];
