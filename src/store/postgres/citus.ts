/**
 * The Citus layout: for every table of the PostgreSQL schema, where it lives on a Citus cluster.
 * On a coordinator, `migratePostgres` applies it after the migrations (and `circulation migrate`
 * with it), so a fresh database and a single-node one moved onto a coordinator end up the same.
 * A table already laid out is left alone. On plain PostgreSQL nothing here runs.
 *
 * Every table the migrations make must be named here: test/store/citus-layout.test.ts fails
 * otherwise, so a table that lands later declares its place as it lands.
 */
import type pg from 'pg';

export type CitusLayout =
  /** Sharded by `by`; its shards sit beside those of `colocateWith` (same distribution values). */
  | { kind: 'distributed'; by: string; colocateWith?: string; why: string }
  /** A copy on every node: small, read in joins with the distributed tables, written rarely. */
  | { kind: 'reference'; why: string }
  /** On the coordinator alone, as a Citus local table (so it may keep foreign keys to reference tables). */
  | { kind: 'local'; why: string };

/**
 * In the order they are laid out: reference tables first (distributed tables' foreign keys point
 * at them), then each colocation group's first table, then the tables placed beside it.
 */
export const CITUS_LAYOUT = {
  products: { kind: 'reference', why: 'the catalogue: small, read with every subscription' },
  newsletters: { kind: 'reference', why: 'the catalogue: small, read with every membership' },
  api_keys: { kind: 'reference', why: 'credentials: a handful of rows, read by every request' },
  site_ranges: {
    kind: 'reference',
    why: "the keys of site licences' networks: an address's lookup reads them on one node, then only the shards of the licences found, never every shard; written rarely (a licence's change)",
  },
  site_domains: {
    kind: 'reference',
    why: "the keys of site licences' email domains: read beside the reader on their own shard, then only the licences' owners' shards",
  },
  kept_runs: { kind: 'reference', why: 'the print runs kept (migration 40), which a Citus cluster does not keep' },
  users: { kind: 'distributed', by: 'id', why: 'the readers: every request about one reads or writes its row' },
  subscriptions: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a user's subscriptions on the user's shard: reads, writes and access checks route to one node",
  },
  user_newsletters: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a user's newsletter memberships, beside the user",
  },
  newsletter_consents: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a user's consents beside their memberships: every change writes both in one node's transaction",
  },
  newsletter_consent_changes: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "the history of a user's consents, written with each change and read by the user's key",
  },
  password_reset_tokens: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a user's reset tokens, beside the user (a token names its user)",
  },
  holds: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a subscription's holds beside it on the user's shard: the rules lock the subscription and read its holds in one node's transaction, and the print run's check of each subscription routes there",
  },
  temporary_addresses: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a reader's temporary addresses beside them: the rules lock the user's row and read them in one node's transaction, and the print run joins each subscription's on its shard",
  },
  delivery_complaints: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a subscription's complaints beside it on the user's shard: made with the subscription locked, and the print run's redelivery probe routes there",
  },
  kept_deliveries: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: 'the print runs kept (migration 40), which a Citus cluster does not keep: its triggers would write across shards',
  },
  seats: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a site licence's seats beside it on its owner's shard: given with the licence locked and counted in one node's transaction",
  },
  seat_holders: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "each seat again as a key of its holder's, on the holder's shard: the holder's access check reads their seats there, then only the licences' owners' shards, never every shard",
  },
  licence_usage: {
    kind: 'distributed',
    by: 'user_id',
    colocateWith: 'users',
    why: "a site licence's monthly counts beside it on its owner's shard, read by the licence and added to in batches",
  },
  user_emails: {
    kind: 'distributed',
    by: 'email_lower',
    why: 'the lookup that keeps emails unique across shards: its primary key is its distribution column',
  },
  sign_in_attempts: {
    kind: 'distributed',
    by: 'email_lower',
    colocateWith: 'user_emails',
    why: 'attempts are counted per email, beside the email lookup',
  },
  webhooks: {
    kind: 'local',
    why: 'beside their deliveries: the outbox trigger and the claims join the two, and Citus joins a reference table with a local one only outside such statements',
  },
  audit_log: {
    kind: 'local',
    why: 'the event feed is read in one global id order, and its trigger writes the deliveries in the same transaction',
  },
  webhook_deliveries: {
    kind: 'local',
    why: 'claimed with FOR UPDATE SKIP LOCKED, which Citus runs only on one node; keyed by the audit entry',
  },
  idempotency_keys: {
    kind: 'local',
    why: 'keyed by credential and key, not by user (most have none); claimed under a row lock',
  },
  privacy_requests: {
    kind: 'local',
    why: "the publisher's record of what readers asked, listed across readers by due date, and kept once its reader is erased (without them): not a reader's own row, and a handful a month",
  },
  schema_migrations: { kind: 'local', why: 'the schema version, read once at start' },
  staff: {
    kind: 'local',
    why: 'the console users: a handful of rows that no distributed table refers to, read with a session on every console request',
  },
  staff_sessions: {
    kind: 'local',
    why: 'touched on every console request: one write on the coordinator rather than on every node, beside the staff they cascade from',
  },
} as const satisfies Record<string, CitusLayout>;

/**
 * What a single-node schema has that Citus cannot distribute, replaced before distributing: a
 * unique index must contain the distribution column (email uniqueness is user_emails' primary
 * key instead), and a local table cannot keep a foreign key to a distributed one (erasure
 * deletes a reader's kept responses itself).
 */
const BEFORE_DISTRIBUTING = `
  DROP INDEX IF EXISTS users_email_lower;
  CREATE INDEX IF NOT EXISTS users_email ON users (email_lower);
  ALTER TABLE idempotency_keys DROP CONSTRAINT IF EXISTS idempotency_keys_user_id_fkey;
  -- A cluster keeps no print run (kept-runs.ts): the triggers that keep them go with their
  -- functions, before they are copied onto shards, and what a single node kept goes too.
  DROP FUNCTION IF EXISTS kept_runs_rewrite(), kept_runs_drop() CASCADE;
  DO $$ BEGIN
    IF to_regclass('kept_runs') IS NOT NULL THEN DELETE FROM kept_deliveries; DELETE FROM kept_runs; END IF;
  END $$;
`;

/** Set in the transaction of the migrations, on Citus and off it (see open.ts), and of the layout. */
export const CITUS_MIGRATION_MODE = "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'";

/** Set on every connection to a coordinator (see open.ts). */
export const CITUS_SESSION = "SET citus.multi_shard_modify_mode TO 'sequential'";

/** True when this database is a Citus coordinator (the extension, and workers registered). */
export async function isCitusCoordinator(client: pg.ClientBase): Promise<boolean> {
  const { rows } = await client.query<{ citus: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus",
  );
  if (!rows[0]?.citus) return false;
  const workers = await client.query("SELECT 1 FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary'");
  return (workers.rowCount ?? 0) > 0;
}

/**
 * Lays out every table not laid out yet, in one transaction; nothing when all are. Only the
 * tables there are: a database laid out by an earlier release, and migrated only so far, has
 * none of the later ones yet.
 */
export async function applyCitusLayout(client: pg.ClientBase): Promise<void> {
  const { rows: present } = await client.query<{ name: string }>(
    'SELECT t AS name FROM unnest($1::text[]) AS t WHERE to_regclass(t) IS NOT NULL',
    [Object.keys(CITUS_LAYOUT)],
  );
  const tables = new Set(present.map((row) => row.name));
  const { rows: placed } = await client.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM pg_dist_partition WHERE logicalrelid = ANY($1::regclass[])',
    [[...tables]],
  );
  if (placed[0]?.n === tables.size) return;
  const { rows: unplaced } = await client.query<{ name: string }>(
    'SELECT t AS name FROM unnest($1::text[]) AS t WHERE NOT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = t::regclass)',
    [[...tables]],
  );
  const toPlace = unplaced.map((row) => row.name);
  await client.query('BEGIN');
  try {
    // Shards of tables made in this transaction must be written over the same connections.
    await client.query(CITUS_MIGRATION_MODE);
    // A single-node database's users carry the trigger that keeps their JSON text (user-text.ts),
    // which reads the new row alone; Citus distributes a table with triggers only when told to.
    await client.query('SET LOCAL citus.enable_unsafe_triggers TO on');
    await client.query(BEFORE_DISTRIBUTING);
    // Laying out a table with foreign keys drags the tables they join into Citus local tables,
    // which Citus cannot then distribute (not with identity columns): the keys of the tables to
    // place (from them or to them) go for the layout, and come back once each is in its place.
    // Those of tables placed already stay: their shards carry copies a drop would not find.
    const { rows: keys } = await client.query<{ name: string; on: string; definition: string }>(
      `SELECT conname AS name, conrelid::regclass::text AS on, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace
         AND (conrelid::regclass::text = ANY($1::text[]) OR confrelid::regclass::text = ANY($1::text[]))`,
      [toPlace],
    );
    for (const key of keys) await client.query(`ALTER TABLE ${key.on} DROP CONSTRAINT ${key.name}`);
    // Making a table of a single-node database a Citus local table starts its identity sequence
    // over (the next audit entry would take id 1 again): each goes back to where it stood.
    const { rows: sequences } = await client.query<{ sequence: string; last: string }>(
      `SELECT format('%I.%I', schemaname, sequencename) AS sequence, last_value::text AS last FROM pg_sequences
       WHERE schemaname = current_schema() AND last_value IS NOT NULL`,
    );
    for (const [table, layout] of Object.entries(CITUS_LAYOUT) as [string, CitusLayout][]) {
      if (!toPlace.includes(table)) continue;
      // Asked each time: laying out a table may take along the tables its foreign keys join it to.
      const known = await client.query('SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass', [table]);
      if (known.rowCount) continue;
      if (layout.kind === 'reference') await client.query('SELECT create_reference_table($1)', [table]);
      else if (layout.kind === 'local') await client.query('SELECT citus_add_local_table_to_metadata($1)', [table]);
      else
        await client.query('SELECT create_distributed_table($1, $2, colocate_with => $3)', [
          table,
          layout.by,
          layout.colocateWith ?? 'none',
        ]);
      // The rows of a single-node database were copied into the shards: the coordinator's copy goes.
      if (layout.kind !== 'local')
        await client.query('SELECT truncate_local_data_after_distributing_table($1)', [table]);
    }
    for (const key of keys) await client.query(`ALTER TABLE ${key.on} ADD CONSTRAINT ${key.name} ${key.definition}`);
    for (const { sequence, last } of sequences) await client.query('SELECT setval($1, $2)', [sequence, last]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
