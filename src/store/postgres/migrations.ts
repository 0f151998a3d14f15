/**
 * The PostgreSQL schema, as numbered migrations (see sql/migrations.ts). Integrity lives in the
 * schema: foreign keys that erase what belongs to a user with them, a unique index on the
 * lower-cased email, NOT NULL and CHECK constraints for the enumerations, and an index for
 * every list and filter. Every per-user table leads with `user_id`, the distribution column
 * in a sharded (Citus) deployment, so each subscription query routes to one shard.
 */
import type pg from 'pg';
import type { FillingMigration } from '../sql/migrations.js';
import { fillUserCompactKeys, fillUserSearchKeys, indexNamesBySimilarity } from './users.js';

export type PostgresMigration = FillingMigration<pg.ClientBase, Promise<void>>;

export const postgresMigrations: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'users, newsletters and subscriptions',
    sql: `
      CREATE TABLE users (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        email text NOT NULL,
        email_lower text NOT NULL,
        email_domain text NOT NULL,
        password_hash text,
        family_name text NOT NULL CHECK (btrim(family_name) <> ''),
        honorific_prefix text,
        given_name text,
        additional_name text,
        honorific_suffix text,
        address_street_address text,
        address_unit_number text,
        address_address_locality text,
        address_address_region text,
        address_address_country text,
        address_postal_code text,
        circulation_number text,
        internal_notes text,
        job_title text,
        works_for_legal_name text,
        works_for_telephone text,
        telephone text,
        cell_number text,
        fax_number text,
        demographics jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX users_email_lower ON users (email_lower);
      CREATE INDEX users_email_domain ON users (email_domain, id);
      CREATE INDEX users_circulation_number ON users (circulation_number, id);

      CREATE TABLE user_newsletters (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        newsletter_id text NOT NULL,
        PRIMARY KEY (user_id, newsletter_id)
      );

      CREATE TABLE subscriptions (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        date_started timestamptz NOT NULL,
        date_ended timestamptz,
        external_identifier text,
        license text CHECK (license IN ('individual', 'free', 'site')),
        resource text CHECK (resource IN ('online', 'print', 'print-online')),
        trial boolean NOT NULL DEFAULT false,
        expired boolean NOT NULL DEFAULT false,
        product_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, id),
        CHECK (date_ended IS NULL OR date_ended >= date_started OR expired)
      );
    `,
  },
  {
    version: 2,
    name: 'API credentials and the audit trail',
    sql: `
      CREATE TABLE api_keys (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        scopes text[] NOT NULL CHECK (cardinality(scopes) > 0),
        secret_hash bytea NOT NULL,
        rate_limit integer CHECK (rate_limit IS NULL OR rate_limit > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );

      CREATE TABLE audit_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        occurred_at timestamptz NOT NULL DEFAULT now(),
        actor text,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_id text NOT NULL,
        user_id text,
        attributes text[] NOT NULL
      );
      CREATE INDEX audit_log_resource ON audit_log (resource_type, resource_id, id);
      CREATE INDEX audit_log_actor ON audit_log (actor, id);
    `,
  },
  {
    version: 3,
    name: 'row versions, for ETag and If-Match',
    sql: `
      ALTER TABLE users ADD COLUMN version integer NOT NULL DEFAULT 1;
      ALTER TABLE subscriptions ADD COLUMN version integer NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 4,
    name: 'idempotency keys',
    sql: `
      CREATE TABLE idempotency_keys (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        status integer,
        headers text,
        body text,
        created_at bigint NOT NULL,
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
      CREATE INDEX subscriptions_lapsing ON subscriptions (date_ended) WHERE NOT expired;
    `,
  },
  {
    version: 7,
    name: 'webhooks, and a delivery for each event each webhook receives',
    sql: `
      CREATE TABLE webhooks (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        url text NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        secret_salt text NOT NULL,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      -- Instants in epoch milliseconds: retries come seconds apart, or less.
      CREATE TABLE webhook_deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        webhook_id bigint NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id bigint NOT NULL REFERENCES audit_log (id) ON DELETE CASCADE,
        event_type text NOT NULL,
        user_id text NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        created_at bigint NOT NULL,
        next_attempt_at bigint,
        locked_until bigint,
        last_attempt_at bigint,
        last_status integer,
        last_error text,
        delivered_at bigint,
        version integer NOT NULL DEFAULT 1,
        UNIQUE (webhook_id, event_id)
      );
      CREATE INDEX webhook_deliveries_list ON webhook_deliveries (webhook_id, id);
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
      CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, user_id, event_id)
        WHERE state = 'pending';

      -- The outbox: every event gets its deliveries in the transaction that records it. A delivery
      -- queued behind others of its user is not due before the last of them (a hint that keeps
      -- waiting queues out of the claims' way; the claim itself checks the order). KEY SHARE: a
      -- webhook deleted meanwhile is skipped, rather than fail this change on the foreign key.
      CREATE FUNCTION webhook_deliveries_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        kind text := CASE NEW.resource_type WHEN 'users' THEN 'user' ELSE 'subscription' END || '.' ||
          CASE NEW.action WHEN 'create' THEN 'created' WHEN 'update' THEN 'updated'
            WHEN 'delete' THEN 'deleted' ELSE 'expired' END;
        now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, created_at, next_attempt_at)
        SELECT w.id, NEW.id, kind, NEW.user_id, now_ms, greatest(now_ms, (
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.user_id = NEW.user_id AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1))
        FROM webhooks w WHERE kind = ANY (w.events)
        FOR KEY SHARE OF w;
        RETURN NULL;
      END $$;
      CREATE TRIGGER audit_log_webhook_deliveries AFTER INSERT ON audit_log FOR EACH ROW
        WHEN (NEW.resource_type IN ('users', 'subscriptions') AND NEW.action IN ('create', 'update', 'delete', 'expire'))
        EXECUTE FUNCTION webhook_deliveries_of_event();
    `,
  },
  {
    version: 8,
    name: 'credential versions, for ETag and If-Match',
    sql: `
      ALTER TABLE api_keys ADD COLUMN version integer NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 9,
    name: 'each audit entry names the event it is; the outbox trigger and the event feed read it',
    sql: `
      ALTER TABLE audit_log ADD COLUMN event_type text;
      UPDATE audit_log SET event_type =
        CASE resource_type WHEN 'users' THEN 'user' ELSE 'subscription' END || '.' ||
        CASE action WHEN 'create' THEN 'created' WHEN 'update' THEN 'updated'
          WHEN 'delete' THEN 'deleted' ELSE 'expired' END
      WHERE resource_type IN ('users', 'subscriptions') AND action IN ('create', 'update', 'delete', 'expire');
      CREATE INDEX audit_log_event_type ON audit_log (event_type, id) WHERE event_type IS NOT NULL;

      CREATE OR REPLACE FUNCTION webhook_deliveries_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, created_at, next_attempt_at)
        SELECT w.id, NEW.id, NEW.event_type, NEW.user_id, now_ms, greatest(now_ms, (
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.user_id = NEW.user_id AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1))
        FROM webhooks w WHERE NEW.event_type = ANY (w.events)
        FOR KEY SHARE OF w;
        RETURN NULL;
      END $$;
      DROP TRIGGER audit_log_webhook_deliveries ON audit_log;
      CREATE TRIGGER audit_log_webhook_deliveries AFTER INSERT ON audit_log FOR EACH ROW
        WHEN (NEW.event_type IS NOT NULL) EXECUTE FUNCTION webhook_deliveries_of_event();
    `,
  },
  {
    version: 10,
    name: 'readers sign in: the last sign-in of each user, attempts per email, password reset tokens',
    sql: `
      ALTER TABLE users ADD COLUMN last_sign_in_at timestamptz;

      -- The sign-in attempts counted for an email (lower-cased) in the window that began with the
      -- first of them (epoch seconds). Personal data: erasing the user removes their row.
      CREATE TABLE sign_in_attempts (
        email_lower text PRIMARY KEY,
        attempts integer NOT NULL CHECK (attempts > 0),
        window_started_at bigint NOT NULL
      );
      CREATE INDEX sign_in_attempts_window ON sign_in_attempts (window_started_at);

      -- Only a SHA-256 of each token's random part is kept. Instants in epoch seconds.
      CREATE TABLE password_reset_tokens (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        token_hash bytea NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (user_id, id)
      );
      CREATE UNIQUE INDEX password_reset_tokens_hash ON password_reset_tokens (user_id, token_hash);
      CREATE INDEX password_reset_tokens_expiry ON password_reset_tokens (expires_at);
    `,
  },
  {
    version: 11,
    name: 'products and newsletters as records, which subscriptions and memberships refer to',
    sql: `
      -- Ids in byte order ("C"), as SQLite orders them: the order of pages by id is the same on
      -- both stores, whatever the database's own collation.
      CREATE TABLE products (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL CHECK (name <> ''),
        description text,
        active boolean NOT NULL DEFAULT true,
        resource text CHECK (resource IN ('online', 'print', 'print-online')),
        license text CHECK (license IN ('individual', 'free', 'site')),
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX products_active ON products (active, id);

      CREATE TABLE newsletters (
        id text COLLATE "C" PRIMARY KEY,
        name text NOT NULL CHECK (name <> ''),
        description text,
        active boolean NOT NULL DEFAULT true,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX newsletters_active ON newsletters (active, id);

      -- Every id already in use becomes a record named after itself, so no reference dangles.
      INSERT INTO products (id, name)
        SELECT DISTINCT product_id, product_id FROM subscriptions WHERE product_id IS NOT NULL;
      INSERT INTO newsletters (id, name) SELECT DISTINCT newsletter_id, newsletter_id FROM user_newsletters;

      -- Who has an active subscription of a product, or giving a resource, and who is on a
      -- newsletter: each an index seek in user order (and the counts a record's meta gives). The
      -- first and the last also serve the foreign keys' checks when a record is deleted.
      CREATE INDEX subscriptions_product ON subscriptions (product_id, expired, user_id, date_started, date_ended);
      CREATE INDEX subscriptions_resource
        ON subscriptions (resource, expired, user_id, date_started, date_ended, product_id);
      CREATE INDEX user_newsletters_newsletter ON user_newsletters (newsletter_id, user_id);

      -- Foreign keys from per-user tables to what will be reference tables under Citus.
      ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_product_id_fkey
        FOREIGN KEY (product_id) REFERENCES products (id);
      ALTER TABLE user_newsletters ADD CONSTRAINT user_newsletters_newsletter_id_fkey
        FOREIGN KEY (newsletter_id) REFERENCES newsletters (id);
    `,
  },
  {
    version: 12,
    name: 'deliveries of events without a user, queued by the record they are about',
    sql: `
      -- A delivery's queue is what its order is kept within: a user (their events and their
      -- subscriptions') or, for an event without a user, the record it is about.
      ALTER TABLE webhook_deliveries ALTER COLUMN user_id DROP NOT NULL, ADD COLUMN queue text;
      UPDATE webhook_deliveries SET queue = 'users/' || user_id;
      ALTER TABLE webhook_deliveries ALTER COLUMN queue SET NOT NULL;
      DROP INDEX webhook_deliveries_queue;
      CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (webhook_id, queue, event_id)
        WHERE state = 'pending';

      CREATE OR REPLACE FUNCTION webhook_deliveries_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        now_ms bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        queue_of text := coalesce('users/' || NEW.user_id, NEW.resource_type || '/' || NEW.resource_id);
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, queue, created_at, next_attempt_at)
        SELECT w.id, NEW.id, NEW.event_type, NEW.user_id, queue_of, now_ms, greatest(now_ms, (
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.queue = queue_of AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1))
        FROM webhooks w WHERE NEW.event_type = ANY (w.events)
        FOR KEY SHARE OF w;
        RETURN NULL;
      END $$;
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
      ALTER TABLE idempotency_keys ADD COLUMN user_id bigint REFERENCES users (id) ON DELETE CASCADE;
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
      -- One row per user's email, written in the transaction that writes the user's. Its primary
      -- key keeps emails unique where the users' own unique index cannot: on Citus, where users
      -- are sharded by id and this table by the address (see citus.ts).
      CREATE TABLE user_emails (
        email_lower text PRIMARY KEY,
        user_id bigint NOT NULL
      );
      INSERT INTO user_emails (email_lower, user_id) SELECT email_lower, id FROM users;
    `,
  },
  {
    version: 16,
    name: 'staff, who use the console, and their sessions',
    sql: `
      -- The publisher's people: not readers, not API credentials. Instants in epoch seconds.
      CREATE TABLE staff (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        email text NOT NULL,
        email_lower text NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        role text NOT NULL CHECK (role IN ('agent', 'supervisor', 'admin')),
        password_hash text NOT NULL,
        created_at bigint NOT NULL,
        disabled_at bigint,
        version integer NOT NULL DEFAULT 1
      );
      CREATE UNIQUE INDEX staff_email_lower ON staff (email_lower);

      -- Only a SHA-256 of each session id is kept; a session ends when it is idle too long.
      CREATE TABLE staff_sessions (
        id_hash bytea PRIMARY KEY,
        staff_id bigint NOT NULL REFERENCES staff (id) ON DELETE CASCADE,
        created_at bigint NOT NULL,
        last_seen_at bigint NOT NULL
      );
      CREATE INDEX staff_sessions_staff ON staff_sessions (staff_id);
      CREATE INDEX staff_sessions_last_seen ON staff_sessions (last_seen_at);
    `,
  },
  {
    version: 17,
    name: 'outbox instants floored to the millisecond',
    sql: `
      -- Casting to bigint rounded, putting a delivery up to half a millisecond in the future of a
      -- dispatcher's Date.now(), which truncates: it was not yet due when claimed at once.
      CREATE OR REPLACE FUNCTION webhook_deliveries_of_event() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        now_ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
        queue_of text := coalesce('users/' || NEW.user_id, NEW.resource_type || '/' || NEW.resource_id);
      BEGIN
        INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, user_id, queue, created_at, next_attempt_at)
        SELECT w.id, NEW.id, NEW.event_type, NEW.user_id, queue_of, now_ms, greatest(now_ms, (
            SELECT e.next_attempt_at FROM webhook_deliveries e
            WHERE e.webhook_id = w.id AND e.queue = queue_of AND e.state = 'pending'
            ORDER BY e.event_id DESC LIMIT 1))
        FROM webhooks w WHERE NEW.event_type = ANY (w.events)
        FOR KEY SHARE OF w;
        RETURN NULL;
      END $$;
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
      ALTER TABLE subscriptions ADD COLUMN pending_start timestamptz
        CHECK (pending_start IS NULL OR pending_start = date_started);
      UPDATE subscriptions SET pending_start = date_started WHERE date_started > now();
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
      -- Each name lower-cased without accents (domain/search.ts), kept beside it by every write.
      -- A search is a range of keys that start with the text typed, which only code point order
      -- ("C") makes a range: the keys, and the emails for the search, are indexed in it.
      ALTER TABLE users ADD COLUMN family_key text COLLATE "C", ADD COLUMN given_key text COLLATE "C";
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
      CREATE INDEX users_email_key ON users ((email_lower COLLATE "C"), id);
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
        WHERE NOT expired;
      CREATE INDEX subscriptions_started ON subscriptions (date_started);
      CREATE INDEX subscriptions_ended ON subscriptions (date_ended);
    `,
  },
  {
    version: 22,
    name: "a user's subscriptions indexed with what the access check reads",
    sql: `
      -- Nothing to change here. On SQLite the access check read each subscription's row after its
      -- index entry, and the index now carries the columns instead. Here the primary key
      -- (user_id, id) finds a user's subscriptions, which sit on one heap page or two, and the
      -- round trip outweighs those reads: a ninth index would cost every write more than it
      -- saves the check.
    `,
  },
  {
    version: 23,
    name: 'who has an active subscription, read by keys of what it gives once it has started',
    sql: `
      -- Who has an active subscription giving a resource, or of a product, is read in user order
      -- from an index. A planner takes that order from an index only past columns the query holds
      -- equal, and "pending_start IS NULL" (started, migration 18) or "resource IS NULL" (given
      -- by the product) is not an equality: those reads walked every subscription by the primary
      -- key instead, sure from the columns' statistics, taken one by one, that the page was near.
      -- Where nothing matched (a product whose subscriptions all start next month) that walk read
      -- them all: 1.5 million rows, 290 ms a page at 1,000,000 users. Each index now has one key of
      -- both facts, null while the start is to come, which a read holds equal and whose statistics
      -- are gathered whole, so that an empty range is known to be one: the resource a started
      -- subscription names, or else '/' and its product's id (no resource starts so), read product
      -- by product for those giving a resource; and the product it is of. The queries write them
      -- as here (sql/subscriptions.ts).
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
      ALTER TABLE users ADD COLUMN family_compact text COLLATE "C", ADD COLUMN given_compact text COLLATE "C";
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
    `,
    // pg_trgm, and the names' trigram indexes, whose operator class is named by its schema.
    fill: indexNamesBySimilarity,
  },
  {
    version: 26,
    name: 'delivery days of products and subscriptions',
    sql: `
      -- The weekdays a print product is delivered on, and those a subscription keeps of them, as a
      -- mask (Monday the lowest bit, domain/delivery-days.ts): "delivered on this date" is one AND.
      -- A subscription without its own takes every one of its product's.
      ALTER TABLE products ADD COLUMN delivery_days integer NOT NULL DEFAULT 127
        CHECK (delivery_days BETWEEN 1 AND 127);
      ALTER TABLE subscriptions ADD COLUMN delivery_days integer
        CHECK (delivery_days IS NULL OR delivery_days BETWEEN 1 AND 127);
    `,
  },
  {
    version: 27,
    name: 'holds',
    sql: `
      -- A subscription's deliveries stopped from one publication date to another (both included,
      -- as day numbers since 1970-01-01: domain/publication.ts). Withdrawn rather than deleted.
      -- Keyed by user first, the distribution column on Citus (co-located with subscriptions); the
      -- rules read a subscription's holds by that key, and the print run asks of each subscription
      -- whether a hold covers the date: both a seek on (user_id, subscription_id).
      CREATE TABLE holds (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        subscription_id bigint NOT NULL,
        start_date integer NOT NULL,
        end_date integer NOT NULL CHECK (end_date >= start_date),
        compensation text NOT NULL CHECK (compensation IN ('extend', 'credit', 'donate')),
        deliveries_missed integer NOT NULL CHECK (deliveries_missed >= 0),
        extended_days integer NOT NULL DEFAULT 0 CHECK (extended_days >= 0),
        withdrawn boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 1,
        PRIMARY KEY (user_id, id),
        FOREIGN KEY (user_id, subscription_id) REFERENCES subscriptions (user_id, id) ON DELETE CASCADE
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
      -- in the columns a user's has. A reader's never overlap (the rules see to it with the user's
      -- row locked), so the print run finds the one in force by a seek on (user_id, start_date).
      -- Keyed by user first, the distribution column on Citus (co-located with users).
      CREATE TABLE temporary_addresses (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        start_date integer NOT NULL,
        end_date integer NOT NULL CHECK (end_date >= start_date),
        address_street_address text,
        address_unit_number text,
        address_address_locality text,
        address_address_region text,
        address_address_country text,
        address_postal_code text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 1,
        PRIMARY KEY (user_id, id)
      );
      CREATE INDEX temporary_addresses_user ON temporary_addresses (user_id, start_date, end_date);
    `,
  },
  {
    version: 29,
    name: 'delivery complaints',
    sql: `
      -- A reader's complaint of one delivery (a subscription and a publication date, as a day
      -- number), one per subscription and date (the unique constraint, led by the distribution
      -- column as Citus needs). A redelivery is on the run of redelivery_date: the print run reads a
      -- date's redeliveries first (a few rows, by the partial index) and joins them to its subscriptions.
      CREATE TABLE delivery_complaints (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        subscription_id bigint NOT NULL,
        delivery_date integer NOT NULL,
        reason text NOT NULL
          CHECK (reason IN ('missed', 'damaged', 'wet', 'late', 'incomplete', 'wrong-address')),
        remedy text NOT NULL CHECK (remedy IN ('redeliver', 'extend', 'none')),
        is_repeat boolean NOT NULL,
        redelivery_date integer CHECK ((remedy = 'redeliver') = (redelivery_date IS NOT NULL)),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, id),
        CONSTRAINT delivery_complaints_date UNIQUE (user_id, subscription_id, delivery_date),
        FOREIGN KEY (user_id, subscription_id) REFERENCES subscriptions (user_id, id) ON DELETE CASCADE
      );
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
      -- key to newsletters: a consent, and a suppression, outlive the newsletter's record. Keyed
      -- by user first, the distribution column on Citus (co-located with users).
      CREATE TABLE newsletter_consents (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        newsletter_id text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'subscribed', 'unsubscribed', 'bounced', 'complained')),
        source text NOT NULL CHECK (source IN ('api', 'console', 'import', 'confirmation', 'unsubscribe-link', 'email-provider')),
        changed_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, newsletter_id)
      );
      -- Never an address or a user agent: the state, how it came, who made it (as the audit trail
      -- names actors) and when.
      CREATE TABLE newsletter_consent_changes (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        newsletter_id text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'subscribed', 'unsubscribed', 'bounced', 'complained')),
        source text NOT NULL CHECK (source IN ('api', 'console', 'import', 'confirmation', 'unsubscribe-link', 'email-provider')),
        actor text,
        changed_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, id)
      );
      CREATE INDEX newsletter_consent_changes_consent ON newsletter_consent_changes (user_id, newsletter_id, id);

      -- Every membership there is becomes a subscribed consent of source 'import' (brought from
      -- before the ledger), changed when the audit trail last saw the reader's newsletters sent
      -- (their creation or an update naming newsletters), else when the reader was created: the
      -- data holds no time of its own for a membership. The trail's times are gathered first, not
      -- read per membership: on a Citus coordinator the trail is a local table, which a distributed
      -- query may join as a result read beforehand, not as a correlated subquery.
      WITH last_sent AS (
        SELECT user_id, max(occurred_at) AS at FROM audit_log
        WHERE resource_type = 'users' AND action IN ('create', 'update') AND 'newsletters' = ANY (attributes)
        GROUP BY user_id
      )
      INSERT INTO newsletter_consents (user_id, newsletter_id, state, source, changed_at)
        SELECT m.user_id, m.newsletter_id, 'subscribed', 'import', coalesce(l.at, u.created_at)
        FROM user_newsletters m JOIN users u ON u.id = m.user_id LEFT JOIN last_sent l ON l.user_id = m.user_id::text;
      INSERT INTO newsletter_consent_changes (user_id, newsletter_id, state, source, actor, changed_at)
        SELECT user_id, newsletter_id, state, source, 'migration', changed_at FROM newsletter_consents
        ORDER BY user_id, newsletter_id;

      -- A newsletter that asks an added reader to confirm first.
      ALTER TABLE newsletters ADD COLUMN double_opt_in boolean NOT NULL DEFAULT false;
      -- Of a consent change's entry (and event): its old and new state and source, words of
      -- domain/consent.ts only, never a reader's value.
      ALTER TABLE audit_log ADD COLUMN consent_change jsonb;
    `,
  },
  {
    version: 31,
    name: 'site licences: their networks, email domains and seats',
    sql: `
      -- A site licence's terms as written (site-licence.ts), for reading the subscription back: the
      -- ranges and domains as JSON arrays, null for none.
      ALTER TABLE subscriptions ADD COLUMN ip_ranges text, ADD COLUMN email_domains text,
        ADD COLUMN seats integer CHECK (seats IS NULL OR seats >= 1);
      -- The same terms as keys to find the licences by, written with the subscription. A range is
      -- (prefix length, network): an address asks for its network at each prefix length a range may
      -- have, each an exact probe of the primary key, whatever the number of licences and however
      -- their ranges overlap. The network is 4 bytes (IPv4) or 16 (IPv6), so a prefix length names
      -- one family's keys. No foreign key: on Citus these are reference tables (citus.ts), which
      -- cannot refer to the sharded subscriptions; every write and erasure of a subscription
      -- writes them itself.
      CREATE TABLE site_ranges (
        prefix_length smallint NOT NULL,
        network bytea NOT NULL,
        family smallint NOT NULL CHECK (family IN (4, 6)),
        user_id bigint NOT NULL,
        subscription_id bigint NOT NULL,
        PRIMARY KEY (prefix_length, network, user_id, subscription_id),
        CHECK (length(network) = CASE family WHEN 4 THEN 4 ELSE 16 END),
        CHECK (prefix_length BETWEEN CASE family WHEN 4 THEN 8 ELSE 32 END AND CASE family WHEN 4 THEN 32 ELSE 128 END)
      );
      CREATE INDEX site_ranges_subscription ON site_ranges (user_id, subscription_id);
      -- A domain as written: acme.com exactly, *.acme.com for every domain below it; a reader's
      -- domain asks for itself and for the wildcard of each of its parents.
      CREATE TABLE site_domains (
        domain text COLLATE "C" NOT NULL,
        user_id bigint NOT NULL,
        subscription_id bigint NOT NULL,
        PRIMARY KEY (domain, user_id, subscription_id)
      );
      CREATE INDEX site_domains_subscription ON site_domains (user_id, subscription_id);
    `,
  },
  {
    version: 32,
    name: 'a blank family name may be imported',
    sql: `
      -- Whether a family name may be blank is the interface's rule, kept by the API; an import
      -- may take one (--allow-blank-family-name). The CHECK of migration 1, by the name PostgreSQL
      -- gave it; on Citus the drop reaches every shard of users.
      ALTER TABLE users DROP CONSTRAINT users_family_name_check;
    `,
  },
  {
    version: 33,
    name: 'seats of site licences, and their holders',
    sql: `
      -- A seat is its licence owner's record (user_id), naming the reader given it (holder_id);
      -- the licence deleted or its owner erased, it cascades. A reader holds one seat of a licence
      -- at most. No foreign key to the holder: on Citus the holder's row is on another shard.
      CREATE TABLE seats (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        id bigint GENERATED ALWAYS AS IDENTITY,
        subscription_id bigint NOT NULL,
        holder_id bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, id),
        UNIQUE (user_id, subscription_id, holder_id),
        FOREIGN KEY (user_id, subscription_id) REFERENCES subscriptions (user_id, id) ON DELETE CASCADE
      );
      CREATE INDEX seats_subscription ON seats (user_id, subscription_id, id);
      -- The same seat as a key of its holder's (user_id), which the holder's access check reads by
      -- their id: on Citus it sits on the holder's shard (citus.ts), where the seat sits on the
      -- owner's. Every write and erasure of a seat writes both (seats.ts).
      CREATE TABLE seat_holders (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        owner_id bigint NOT NULL,
        subscription_id bigint NOT NULL,
        seat_id bigint NOT NULL,
        PRIMARY KEY (user_id, owner_id, subscription_id)
      );
    `,
  },
  {
    version: 34,
    name: 'usage of site licences by month',
    sql: `
      -- The access checks a licence granted, per calendar month (YYYY-MM, UTC) and way (domain/
      -- licence-usage.ts), added to in batches by every process.
      CREATE TABLE licence_usage (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        subscription_id bigint NOT NULL,
        month text COLLATE "C" NOT NULL CHECK (month ~ '^[0-9]{4}-[0-9]{2}$'),
        via text NOT NULL CHECK (via IN ('ip', 'email-domain', 'seat')),
        checks bigint NOT NULL CHECK (checks >= 0),
        PRIMARY KEY (user_id, subscription_id, month, via),
        FOREIGN KEY (user_id, subscription_id) REFERENCES subscriptions (user_id, id) ON DELETE CASCADE
      );
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
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        user_id bigint,
        kind text NOT NULL CHECK (kind IN ('access', 'erasure', 'rectification', 'objection')),
        received_at bigint NOT NULL,
        due_at bigint NOT NULL,
        completed_at bigint CHECK (completed_at IS NULL OR completed_at >= received_at),
        notes text,
        reader_erased_at bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        version integer NOT NULL DEFAULT 1
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
      -- A page of the print run walks the subscriptions in id order past its cursor, stopping at
      -- the page's end (sql/deliveries.ts). The primary key leads with the user (Citus places rows
      -- by user), so without this index every page read and sorted each subscription past the
      -- cursor, a cost growing with the table. On SQLite the id is the table's own key.
      CREATE INDEX subscriptions_id ON subscriptions (id);
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
      -- of their own and are not expired (postgres/products.ts). The run still asks the product,
      -- so a mark left set would cost a step, never a wrong delivery.
      ALTER TABLE subscriptions ADD COLUMN gives_print boolean NOT NULL DEFAULT false;
    `,
    // Each a statement of its own: Citus sends the text of a change of a distributed table to its
    // shards, which refuse a text of several.
    fill: async (client) => {
      await client.query(`UPDATE subscriptions SET gives_print = true
        WHERE resource IN ('print', 'print-online')
          OR (resource IS NULL AND product_id IN (SELECT id FROM products WHERE resource IN ('print', 'print-online')))`);
      await client.query('DROP INDEX subscriptions_print_run');
      await client.query(
        'CREATE INDEX subscriptions_print_run ON subscriptions (id) WHERE gives_print = true AND expired = false',
      );
    },
  },
  {
    version: 39,
    name: "users' JSON text kept on their rows",
    sql: `
      -- What a user's row alone writes of its JSON text (sql/user-json.ts), kept on the row so
      -- that a page of users reads it rather than writing it again. Triggers made when the
      -- database is opened (postgres/user-text.ts) write it, after this migration and whenever the
      -- release renders a user otherwise; until then a column is NULL.
      -- One statement, as Citus sends it to the shards, which refuse a text of several.
      ALTER TABLE users ADD COLUMN json_text_0 text, ADD COLUMN json_text_1 text;
    `,
  },
  {
    version: 40,
    name: 'the print runs of the next dates kept',
    sql: `
      -- The runs of the next dates, kept as a page reads them (sql/kept-runs.ts): a run's row
      -- says its date (a day number), what its statement reads of it, and how far its build is;
      -- a kept delivery is its text, with what a page filters by. A trigger made when the
      -- database is migrated (postgres/kept-runs.ts) keeps the rows of a reader whose deliveries
      -- a write may change. Pages read them in (date, subscription) order. The key leads with the
      -- reader, as Citus would need, though a Citus cluster keeps no run.
      CREATE TABLE kept_runs (
        date integer PRIMARY KEY,
        date_text text NOT NULL,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL,
        weekday_bit integer NOT NULL,
        state smallint NOT NULL CHECK (state IN (0, 1, 2)),
        claimed_at timestamptz NOT NULL
      );
      CREATE TABLE kept_deliveries (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        date integer NOT NULL,
        subscription_id bigint NOT NULL,
        product_id text,
        postal_code text,
        json text NOT NULL,
        PRIMARY KEY (user_id, date, subscription_id)
      );
      CREATE INDEX kept_deliveries_page ON kept_deliveries (date, subscription_id);
      CREATE INDEX kept_deliveries_product ON kept_deliveries (date, product_id, subscription_id);
      CREATE INDEX kept_deliveries_postal_code ON kept_deliveries (date, postal_code, subscription_id);
    `,
  },
];
