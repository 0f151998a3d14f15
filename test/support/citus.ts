/**
 * Citus for the tests: CITUS_URL names a coordinator's database (`.ci/run` makes a throwaway
 * cluster with ../shared/citus and sets it). Every store under test gets a schema of its own in
 * that database (Citus creates and drops it on the workers too), so runs never collide. Under
 * CI=true a missing or unreachable coordinator fails the run; elsewhere its tests are skipped,
 * saying so.
 */
import { dateIn } from './print.js';
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type pg from 'pg';
import { createSubscription, createUser, createWebhook, issueKey, subscriptionDocument } from './fixtures.js';
import { createTestSchema, skipUnlessCi, whyUntestable, type TestSchema } from './postgres.js';
import type { Service } from './service.js';
import { forEachStore, type StoreKind } from './stores.js';

export const CITUS_URL = process.env.CITUS_URL;

const HOW_TO_RUN =
  'The Citus tests need CITUS_URL, a database on a Citus coordinator with workers registered: ' +
  '`../shared/citus/install`, `../shared/citus/cluster start DIR 9700`, then ' +
  '`CITUS_URL=$(../shared/citus/cluster createdb DIR circulation_test)`.';

async function hasWorkers(client: pg.Client): Promise<string | undefined> {
  const { rows } = await client.query('SELECT count(*)::int AS n FROM pg_dist_node WHERE groupid <> 0');
  return rows[0].n === 0 ? `${CITUS_URL} has no workers` : undefined;
}

/** Undefined when Citus can be tested; otherwise why not (only ever outside CI). */
export const citusSkipReason = skipUnlessCi(
  'Citus',
  CITUS_URL ? await whyUntestable(CITUS_URL, HOW_TO_RUN, hasWorkers) : `${HOW_TO_RUN} (CITUS_URL is not set)`,
);

export type CitusSchema = TestSchema;

/** A schema of its own in the coordinator's database. */
export const createCitusSchema = (): Promise<CitusSchema> => createTestSchema(CITUS_URL as string);

/** A reader with rows in every table that holds a reader's data, all made through the API. */
export interface EverywhereReader {
  userId: string;
  email: string;
  subscriptionIds: string[];
}

/**
 * Makes, through `service`'s API, a reader with a password, newsletters, several subscriptions
 * (one under an Idempotency-Key, so a kept response names them), a site licence with a seat given
 * and its usage counted, a seat of another's licence, a reset token and a failed sign-in (an
 * attempt counted by their email), with a webhook registered so their events have deliveries.
 */
export async function readerInEveryTable(service: Service, marker: string): Promise<EverywhereReader> {
  const { client } = service;
  await createWebhook(client, { events: ['user.created', 'subscription.created', 'user.deleted'] });
  const email = `Everywhere.${marker}@Example.com`;
  const userId = await createUser(client, {
    email,
    password: `a long passphrase ${marker}`,
    givenName: `Given${marker}`,
    newsletters: { add: ['daily', 'weekly'] },
  });
  const subscriptionIds = [
    await createSubscription(client, userId, { externalIdentifier: `first-${marker}` }),
    await createSubscription(client, userId, {
      externalIdentifier: `second-${marker}`,
      resource: 'print',
      dateEnded: null,
    }),
  ];
  const hold = await client.post(`/users/${userId}/subscriptions/${subscriptionIds[1]}/holds`, {
    data: { type: 'holds', attributes: { startDate: dateIn(10), endDate: dateIn(12) } },
  });
  assert.equal(hold.status, 201, hold.text);
  const temporary = await client.post(`/users/${userId}/temporary-addresses`, {
    data: {
      type: 'temporary-addresses',
      attributes: { startDate: dateIn(20), endDate: dateIn(22), address: { streetAddress: `${marker} Shore Road` } },
    },
  });
  assert.equal(temporary.status, 201, temporary.text);
  const complaint = await client.post(`/users/${userId}/subscriptions/${subscriptionIds[1]}/delivery-complaints`, {
    data: { type: 'delivery-complaints', attributes: { deliveryDate: dateIn(0), reason: 'wet', remedy: 'redeliver' } },
  });
  assert.equal(complaint.status, 201, complaint.text);
  const kept = await client.post(
    `/users/${userId}/subscriptions`,
    subscriptionDocument({ externalIdentifier: `kept-${marker}` }),
    { headers: { 'idempotency-key': `key-${marker}` } },
  );
  assert.equal(kept.status, 201, kept.text);
  subscriptionIds.push(kept.body.data.id);
  // A site licence: its networks and domains are keys in reference tables, which name the reader.
  const licence = await client.post(
    `/users/${userId}/subscriptions`,
    subscriptionDocument({
      license: 'site',
      dateEnded: null,
      ipRanges: ['10.77.0.0/16'],
      emailDomains: [`licence-${marker}.example`],
      seats: 1,
    }),
  );
  assert.equal(licence.status, 201, licence.text);
  subscriptionIds.push(licence.body.data.id);
  // A seat of the reader's licence given to another reader (seats, on the reader's shard), a seat
  // of another's licence given to the reader (seat_holders, on the reader's shard), and a check
  // the licence granted, counted (licence_usage).
  const seatDocument = (id: string) => ({
    data: { type: 'seats', relationships: { user: { data: { type: 'users', id } } } },
  });
  const other = await createUser(client);
  const given = await client.post(`/users/${userId}/subscriptions/${licence.body.data.id}/seats`, seatDocument(other));
  assert.equal(given.status, 201, given.text);
  const theirs = await client.post(
    `/users/${other}/subscriptions`,
    subscriptionDocument({ license: 'site', dateEnded: null, seats: 1 }),
  );
  assert.equal(theirs.status, 201, theirs.text);
  const held = await client.post(`/users/${other}/subscriptions/${theirs.body.data.id}/seats`, seatDocument(userId));
  assert.equal(held.status, 201, held.text);
  assert.equal((await client.get('/access?filter[ip]=10.77.0.1')).status, 200);
  await service.app.licenceUsage.flush();
  const token = await client.post(`/users/${userId}/password-reset-tokens`, undefined);
  assert.equal(token.status, 201, token.text);
  const site = await issueKey(client, ['sign-in']);
  const signIn = await client.as(site.secret).post('/sign-ins', {
    data: { type: 'sign-ins', attributes: { email, password: 'not the passphrase' } },
  });
  assert.equal(signIn.status, 422, signIn.text);
  // A privacy request about them: a local table on the coordinator, which outlives them without them.
  const privacy = await client.post('/privacy-requests', {
    data: {
      type: 'privacy-requests',
      attributes: { kind: 'access', notes: `asked by ${marker}` },
      relationships: { user: { data: { type: 'users', id: userId } } },
    },
  });
  assert.equal(privacy.status, 201, privacy.text);
  return { userId, email, subscriptionIds };
}

/**
 * `forEachStore`, and once more on Citus: for the files that also run there (docs/operating/citus.md
 * names them), kept few because each adds a cluster's round trips to CI.
 */
export function forEachStoreAndCitus(body: (kind: StoreKind) => void): void {
  forEachStore(body);
  describe('Citus', { skip: citusSkipReason }, () => body('Citus'));
}
