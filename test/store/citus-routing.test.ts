/**
 * On Citus, every statement a request about one reader sends carries the distribution key, so it
 * routes to one shard: each statement that GET one user, GET one subscription, PUT a
 * subscription and the access check actually run (recorded as they run, through the real HTTP
 * app) is planned with `EXPLAIN`: the Citus planner makes a router plan (its DEBUG messages say
 * so) and every distributed scan in the plan is a single task. A list page has no reader to
 * route by: it fans out to every shard (docs/operating/citus.md). The other requests about one reader's
 * rows (a new reader, their subscriptions, a new one, a change of the user, an expiry, the
 * erasure) are held to the same.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CITUS_LAYOUT } from '../../src/store/postgres/citus.js';
import { RANGE_PREFIX_LENGTHS } from '../../src/store/sql/site-licences.js';
import { citusSkipReason } from '../support/citus.js';
import { eventually } from '../support/eventually.js';
import {
  createProductSubscriber,
  createSubscription,
  createUser,
  subscriptionDocument,
  userDocument,
} from '../support/fixtures.js';
import { startService, type Service } from '../support/service.js';
import { recordStatements, type Statement } from '../support/statements.js';

/** The distributed tables, as a statement names them. */
const DISTRIBUTED = new RegExp(
  `\\b(${Object.entries(CITUS_LAYOUT)
    .filter(([, layout]) => layout.kind === 'distributed')
    .map(([table]) => table)
    .join('|')})\\b`,
);

/** Transaction control and session settings, which have no plan. */
const NO_PLAN = /^\s*(BEGIN|COMMIT|ROLLBACK|SET|SAVEPOINT|RELEASE)\b/i;

describe('routing on Citus', { skip: citusSkipReason }, () => {
  let service: Service;
  let userId: string;
  let subscriptionId: string;
  before(async () => {
    service = await startService('Citus');
    userId = await createUser(service.client, { newsletters: { add: ['daily'] } });
    subscriptionId = await createSubscription(service.client, userId);
  });
  after(() => service?.close());

  /** The statements on distributed tables that a request sends, with its answer's status. */
  async function statementsOf(request: () => Promise<{ status: number; text: string }>, status: number) {
    const { result, statements } = await recordStatements(request);
    assert.equal(result.status, status, result.text);
    const distributed = statements.filter((s) => !NO_PLAN.test(s.text) && DISTRIBUTED.test(s.text));
    assert.ok(distributed.length > 0, 'the request reads a distributed table');
    return distributed;
  }

  /**
   * The plan of a statement, with the parameters it ran with, and what the Citus planner said
   * while making it (its DEBUG messages: "Creating router plan", or why not).
   */
  async function planOf(statement: Statement): Promise<{ plan: string; planner: string[] }> {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    const planner: string[] = [];
    client.on('notice', (notice) => planner.push(notice.message ?? ''));
    await client.connect();
    try {
      await client.query('SET client_min_messages = debug2');
      const { rows } = await client.query(`EXPLAIN ${statement.text}`, statement.values);
      return { plan: rows.map((r) => r['QUERY PLAN']).join('\n'), planner };
    } finally {
      await client.end();
    }
  }

  /** The task counts of every distributed scan of a plan. */
  const taskCounts = (plan: string) => [...plan.matchAll(/Task Count: (\d+)/g)].map((m) => Number(m[1]));

  async function assertRoutedToOneShard(request: () => Promise<{ status: number; text: string }>, status = 200) {
    for (const statement of await statementsOf(request, status)) {
      const { plan, planner } = await planOf(statement);
      const shown = `\n${statement.text}\n${planner.join('\n')}\n${plan}`;
      assert.match(plan, /Custom Scan \(Citus Adaptive\)/, `not planned by Citus:${shown}`);
      assert.ok(planner.includes('Creating router plan'), `no router plan:${shown}`);
      assert.ok(!planner.some((m) => /multi-shard|cannot handle/i.test(m)), `the router planner gave up:${shown}`);
      const counts = taskCounts(plan);
      assert.ok(counts.length > 0, `no distributed task:${shown}`);
      assert.deepEqual(
        counts,
        counts.map(() => 1),
        `a statement fans out:${shown}`,
      );
    }
  }

  it('routes GET one user to one shard, newsletters included', async () => {
    await assertRoutedToOneShard(() => service.client.get(`/users/${userId}`));
  });

  it('routes GET one subscription to one shard', async () => {
    await assertRoutedToOneShard(() => service.client.get(`/users/${userId}/subscriptions/${subscriptionId}`));
  });

  it('routes PUT a subscription to one shard: the locking read, the update and its audit entry', async () => {
    await assertRoutedToOneShard(() =>
      service.client.put(`/users/${userId}/subscriptions/${subscriptionId}`, {
        data: { type: 'subscriptions', id: subscriptionId, attributes: { trial: true } },
      }),
    );
  });

  it('routes the access check to one shard', async () => {
    // The seat holders' ids are read across the shards once, then kept by the process until a
    // seat is given (licensed-domains.ts, seatHolders): that read is not the check's.
    await eventually(async () => {
      const { statements } = await recordStatements(() => service.client.get(`/users/${userId}/access`));
      return !statements.some((s) => /\bFROM seat_holders\b/.test(s.text) && !/\bWHERE\b/.test(s.text));
    }, 'the seat holders to be kept');
    await assertRoutedToOneShard(() => service.client.get(`/users/${userId}/access`));
  });

  it("sends a subscriber's access check as one statement, which Citus's fast path routes without planning a join, while no licence names a domain", async () => {
    const subscriber = await createUser(service.client);
    await createSubscription(service.client, subscriber, { dateStarted: '2020-01-01T00:00:00Z', dateEnded: null });
    // The licensed domains are read once (a reference table), then kept by the process.
    const [own] = await eventually(async () => {
      const { result, statements } = await recordStatements(() => service.client.get(`/users/${subscriber}/access`));
      assert.equal(result.status, 200, result.text);
      assert.equal(result.body.data.attributes.online, true);
      return statements.length === 1 && statements;
    }, 'the check to be one statement');
    assert.match(own!.text, /\bFROM subscriptions\b/);
    const { planner } = await planOf(own!);
    assert.ok(
      planner.some((m) => /fast-path router query/.test(m)),
      planner.join('\n'),
    );
  });

  it("sends the check of a subscriber whose subscription takes its product's resource as one statement, once the process keeps that resource", async () => {
    const { userId: subscriber } = await createProductSubscriber(service.client, 'print');
    const [statement] = await eventually(async () => {
      const { result, statements } = await recordStatements(() => service.client.get(`/users/${subscriber}/access`));
      assert.equal(result.body.data.attributes.print, true, result.text);
      // The licences of the reader's domain are asked apart (site_domains), whatever they hold.
      const reads = statements.filter(
        ({ text }) => /\bFROM (subscriptions|products|users)\b/.test(text) && !/\bsite_domains\b/.test(text),
      );
      return reads.length === 1 && reads;
    }, 'the check to read nothing but the subscriptions');
    assert.match(statement!.text, /\bFROM subscriptions\b/);
    const { planner } = await planOf(statement!);
    assert.ok(
      planner.some((m) => /fast-path router query/.test(m)),
      planner.join('\n'),
    );
  });

  it("reads an address's licences from the reference table, then only the shards of the licences it holds", async () => {
    const owners = [await createUser(service.client), await createUser(service.client)];
    const ids: string[] = [];
    for (const owner of owners) {
      const created = await service.client.post(
        `/users/${owner}/subscriptions`,
        subscriptionDocument({ license: 'site', dateEnded: null, ipRanges: ['198.51.100.0/24'] }),
      );
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.data.id);
    }
    // The prefix lengths the ranges use are read once (a reference table), then kept by the process.
    const statements = await eventually(async () => {
      const { result, statements } = await recordStatements(() =>
        service.client.get('/access?filter[ip]=198.51.100.7'),
      );
      assert.equal(result.status, 200, result.text);
      assert.deepEqual(
        result.body.data.relationships.subscriptions.data.map((s: { id: string }) => s.id),
        ids,
      );
      return !statements.some((s) => s.text === RANGE_PREFIX_LENGTHS) && statements;
    }, 'the prefix lengths to be kept');
    assert.equal(statements.length, 2, statements.map((s) => s.text).join('\n'));
    const [keys, licences] = statements as [Statement, Statement];
    assert.match(keys.text, /JOIN site_ranges r\b/);
    assert.doesNotMatch(keys.text, DISTRIBUTED);
    const placements = await service.sql(
      `SELECT count(DISTINCT get_shard_id_for_distribution_column('subscriptions', u.id))::int AS n
       FROM unnest(?::bigint[]) AS u(id)`,
      [owners],
    );
    const { plan } = await planOf(licences);
    assert.deepEqual(taskCounts(plan), [Number(placements[0]?.n)], plan);
  });

  it('fans a list page out to every shard of users (no reader to route by)', async () => {
    const [shards] = await service.sql(
      "SELECT count(*)::int AS n FROM pg_dist_shard WHERE logicalrelid = 'users'::regclass",
    );
    const statements = await statementsOf(() => service.client.get('/users'), 200);
    const counts = (await Promise.all(statements.map(planOf))).flatMap(({ plan }) => taskCounts(plan));
    assert.ok(counts.includes(Number(shards?.n)), `no scan of all ${shards?.n} shards: ${counts.join(', ')}`);
  });

  it("routes the check of a reader whose domain a licence names to one shard, then the licence's owner's", async () => {
    // Last of the checks: from here on this process knows of a licensed domain.
    const domain = `citus-${process.pid}.example`;
    const owner = await createUser(service.client);
    const licence = await createSubscription(service.client, owner, {
      license: 'site',
      resource: 'online',
      dateStarted: '2020-01-01T00:00:00Z',
      dateEnded: null,
      emailDomains: [domain],
    });
    const reader = await createUser(service.client, { email: `r@${domain}` });
    const { body } = await service.client.get(`/users/${reader}/access`);
    assert.deepEqual(body.data.attributes.sources, [{ subscription: licence, via: 'email-domain' }]);
    await assertRoutedToOneShard(() => service.client.get(`/users/${reader}/access`));
  });

  describe("every other request about one reader's rows", () => {
    it('routes POST a user to one shard of users and one of the email lookup', async () => {
      await assertRoutedToOneShard(
        () => service.client.post('/users', userDocument({ newsletters: { add: ['daily'] } })),
        201,
      );
    });

    it("routes GET a reader's subscriptions to one shard", async () => {
      await assertRoutedToOneShard(() => service.client.get(`/users/${userId}/subscriptions`));
    });

    it('routes POST a subscription to one shard', async () => {
      await assertRoutedToOneShard(
        () => service.client.post(`/users/${userId}/subscriptions`, subscriptionDocument()),
        201,
      );
    });

    it('routes PATCH a user to one shard: newsletters joined and left, a new password voiding reset tokens', async () => {
      await assertRoutedToOneShard(() =>
        service.client.patch(`/users/${userId}`, {
          data: {
            type: 'users',
            id: userId,
            attributes: { password: 'another long passphrase', newsletters: { add: ['weekly'], remove: ['daily'] } },
          },
        }),
      );
    });

    it('routes expiring a subscription to one shard', async () => {
      await assertRoutedToOneShard(() => service.client.put(`/users/${userId}/subscriptions/${subscriptionId}/expire`));
    });

    it('routes erasing a reader to one shard of users and one of the email lookup', async () => {
      await assertRoutedToOneShard(() => service.client.delete(`/users/${userId}`), 204);
    });
  });
});
