/**
 * The seats of site licences, and their usage, through the API on every store, Citus too: a seat
 * given, listed, read and taken back (or left), what it gives its holder's access, every refusal
 * at its bound, fifty grabs for the last seat of which one wins, the licence's seats never lowered
 * below those given, the events, erasure of a holder and of an owner; and the monthly counts of
 * what a licence granted, which reach the store only in batches.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { monthOf } from '../../../src/domain/licence-usage.js';
import { nowInSeconds } from '../../../src/domain/dates.js';
import { createUser, issueKey, onlyError, subscriptionDocument } from '../../support/fixtures.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, type Service } from '../../support/service.js';

const FAR = '2099-01-01T00:00:00+00:00';
const PAST = '2020-01-01T00:00:00+00:00';
const HOLDER_POINTER = '/data/relationships/user/data/id';

/** A fresh /16 of 172.16/12 each time, so that no test's licences hold another's addresses. */
let networks = 0;
const nextRange = () => {
  networks += 1;
  return {
    ip: `172.${16 + Math.floor(networks / 256)}.${networks % 256}.9`,
    range: `172.${16 + Math.floor(networks / 256)}.${networks % 256}.0/24`,
  };
};

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    // No batch by the timer: a test adds the counts itself when it means to.
    service = await startService(kind, { licenceUsageFlushMs: 3_600_000 });
  });
  after(() => service.close());

  /** A site licence of a new owner, active to far ahead unless `attributes` say otherwise. */
  async function licence(attributes: Record<string, unknown> = {}) {
    const owner = await createUser(service.client);
    const response = await service.client.post(
      `/users/${owner}/subscriptions`,
      subscriptionDocument({ license: 'site', dateStarted: PAST, dateEnded: FAR, seats: 3, ...attributes }),
    );
    assert.equal(response.status, 201, response.text);
    const id: string = response.body.data.id;
    const path = `/users/${owner}/subscriptions/${id}`;
    return { owner, id, path, seats: `${path}/seats` };
  }

  const seatDocument = (holder: string) => ({
    data: { type: 'seats', relationships: { user: { data: { type: 'users', id: holder } } } },
  });
  const give = (seats: string, holder: string) => service.client.post(seats, seatDocument(holder));
  async function given(seats: string, holder: string): Promise<string> {
    const response = await give(seats, holder);
    assert.equal(response.status, 201, response.text);
    return response.body.data.id;
  }
  const holdersOf = async (seats: string) => {
    const response = await service.client.get(seats);
    assert.equal(response.status, 200, response.text);
    return response.body.data.map((seat: any) => seat.relationships.user.data.id);
  };
  const sourcesOf = async (userId: string) => {
    const response = await service.client.get(`/users/${userId}/access`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.attributes.sources;
  };

  describe('a seat', () => {
    it('is given to a reader, named by its location, and listed and read under its licence', async () => {
      const { seats, id } = await licence();
      const holder = await createUser(service.client);
      const response = await give(seats, holder);
      assert.equal(response.status, 201, response.text);
      const seat = response.body.data;
      assert.equal(seat.type, 'seats');
      assert.deepEqual(seat.relationships, {
        user: { data: { type: 'users', id: holder } },
        subscription: { data: { type: 'subscriptions', id } },
      });
      assert.equal(response.headers.get('location'), seat.links.self);
      assert.ok(seat.links.self.endsWith(`${seats}/${seat.id}`));
      const read = await service.client.get(`${seats}/${seat.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body.data, seat);
      assert.deepEqual(await holdersOf(seats), [holder]);
    });

    it('gives its holder what the licence gives others, online and never print, through a source via seat', async () => {
      const { seats, id } = await licence({ resource: 'print-online' });
      const holder = await createUser(service.client);
      assert.deepEqual(await sourcesOf(holder), []);
      await given(seats, holder);
      const access = (await service.client.get(`/users/${holder}/access`)).body.data.attributes;
      assert.equal(access.online, true);
      assert.equal(access.print, false);
      assert.deepEqual(access.sources, [{ subscription: id, via: 'seat' }]);
    });

    it('gives nothing while its licence has ended, and again once it is active', async () => {
      const { seats, path, id } = await licence();
      const holder = await createUser(service.client);
      await given(seats, holder);
      const endAt = async (dateEnded: string) => {
        const changed = await service.client.patch(path, {
          data: { type: 'subscriptions', id, attributes: { dateEnded } },
        });
        assert.equal(changed.status, 200, changed.text);
      };
      await endAt(PAST);
      const access = (await service.client.get(`/users/${holder}/access`)).body.data.attributes;
      assert.equal(access.online, false);
      assert.deepEqual(access.sources, []);
      await endAt(FAR);
      assert.deepEqual(await sourcesOf(holder), [{ subscription: id, via: 'seat' }]);
    });

    it('is given up to the licence’s seats, and one more is 422 SEATS_EXHAUSTED', async () => {
      const { seats } = await licence({ seats: 2 });
      const readers = [await createUser(service.client), await createUser(service.client)];
      for (const reader of readers) await given(seats, reader);
      const error = onlyError(await give(seats, await createUser(service.client)), 422);
      assert.equal(error.code, 'SEATS_EXHAUSTED');
      assert.deepEqual(await holdersOf(seats), readers);
    });

    it('is refused (422 NO_SEATS) on a site licence without seats and on any other licence', async () => {
      const holder = await createUser(service.client);
      const without = await licence({ seats: null });
      assert.equal(onlyError(await give(without.seats, holder), 422).code, 'NO_SEATS');
      const owner = await createUser(service.client);
      const individual = await service.client.post(`/users/${owner}/subscriptions`, subscriptionDocument());
      assert.equal(individual.status, 201, individual.text);
      const seats = `/users/${owner}/subscriptions/${individual.body.data.id}/seats`;
      assert.equal(onlyError(await give(seats, holder), 422).code, 'NO_SEATS');
    });

    it('is given to a reader once: the second is 409 SEAT_TAKEN at the relationship', async () => {
      const { seats } = await licence();
      const holder = await createUser(service.client);
      await given(seats, holder);
      const error = onlyError(await give(seats, holder), 409);
      assert.equal(error.code, 'SEAT_TAKEN');
      assert.equal(error.source.pointer, HOLDER_POINTER);
      assert.deepEqual(await holdersOf(seats), [holder]);
    });

    it('names a reader who exists: any other id is 422 UNKNOWN_REFERENCE at the relationship', async () => {
      const { seats } = await licence();
      for (const id of ['999999999999', 'not-an-id', '0', '1e3', ' 1']) {
        const error = onlyError(await give(seats, id), 422);
        assert.equal(error.code, 'UNKNOWN_REFERENCE', id);
        assert.equal(error.source.pointer, HOLDER_POINTER, id);
      }
      const missing = await service.client.post(seats, { data: { type: 'seats' } });
      assert.equal(onlyError(missing, 422).source.pointer, '/data/relationships/user');
      assert.deepEqual(await holdersOf(seats), []);
    });

    it('is 404 under a subscription the user does not have, and a seat not of the licence is 404', async () => {
      const { owner, seats } = await licence();
      const other = await licence();
      const holder = await createUser(service.client);
      const seat = await given(other.seats, holder);
      assert.equal((await give(`/users/${owner}/subscriptions/999999999/seats`, holder)).status, 404);
      assert.equal((await service.client.get(`/users/${owner}/subscriptions/999999999/seats`)).status, 404);
      assert.equal((await service.client.get(`${seats}/${seat}`)).status, 404);
      assert.equal((await service.client.delete(`${seats}/${seat}`)).status, 404);
    });

    it('is left by its reader with a write credential: the owner sees it gone, and the access with it', async () => {
      const { seats } = await licence();
      const [stays, leaves] = [await createUser(service.client), await createUser(service.client)];
      await given(seats, stays);
      const seat = await given(seats, leaves);
      const write = await issueKey(service.client, ['write']);
      const left = await service.client.as(write.secret).delete(`${seats}/${seat}`);
      assert.equal(left.status, 204, left.text);
      assert.deepEqual(await holdersOf(seats), [stays]);
      assert.equal((await service.client.get(`${seats}/${seat}`)).status, 404);
      assert.deepEqual(await sourcesOf(leaves), []);
      assert.equal((await sourcesOf(stays)).length, 1);
    });

    it('is not given or taken with a read or access credential', async () => {
      const { seats } = await licence();
      const holder = await createUser(service.client);
      const seat = await given(seats, holder);
      for (const scope of ['read', 'access'] as const) {
        const { secret } = await issueKey(service.client, [scope]);
        assert.equal((await service.client.as(secret).post(seats, seatDocument(holder))).status, 403, scope);
        assert.equal((await service.client.as(secret).delete(`${seats}/${seat}`)).status, 403, scope);
      }
    });

    it('goes to exactly one of fifty readers asking at once for the last seat', async () => {
      const { seats } = await licence({ seats: 2 });
      await given(seats, await createUser(service.client));
      const readers = await Promise.all(Array.from({ length: 50 }, () => createUser(service.client)));
      const answers = await Promise.all(readers.map((reader) => give(seats, reader)));
      const statuses = answers.map((a) => a.status);
      const odd = answers.filter((a) => a.status !== 201 && a.status !== 422).map((a) => a.text);
      assert.deepEqual(odd, [], 'every grab that lost is a 422');
      assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(' '));
      for (const answer of answers.filter((a) => a.status !== 201)) {
        assert.equal(onlyError(answer, 422).code, 'SEATS_EXHAUSTED');
      }
      assert.equal((await holdersOf(seats)).length, 2);
    });

    it('is paged by id through links.next', async () => {
      const { seats } = await licence({ seats: 5 });
      const readers = [];
      for (let i = 0; i < 5; i++) {
        readers.push(await createUser(service.client));
        await given(seats, readers[i] as string);
      }
      const first = await service.client.get(`${seats}?page[size]=2`);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.data.length, 2);
      const seen = first.body.data.map((s: any) => s.relationships.user.data.id);
      let next: string | undefined = first.body.links.next;
      while (next) {
        const page = await service.client.get(next.slice(next.indexOf('/users')));
        seen.push(...page.body.data.map((s: any) => s.relationships.user.data.id));
        next = page.body.links.next;
      }
      assert.deepEqual(seen, readers);
    });
  });

  describe("a licence's seats, changed", () => {
    const change = (path: string, attributes: Record<string, unknown>) =>
      service.client.patch(path, { data: { type: 'subscriptions', id: path.split('/').at(-1), attributes } });

    it('may go down to the seats given, and not below them (422 SEATS_GIVEN at seats)', async () => {
      const { path, seats } = await licence({ seats: 3 });
      await given(seats, await createUser(service.client));
      await given(seats, await createUser(service.client));
      const below = onlyError(await change(path, { seats: 1 }), 422);
      assert.equal(below.code, 'SEATS_GIVEN');
      assert.equal(below.source.pointer, '/data/attributes/seats');
      assert.equal((await change(path, { seats: 2 })).status, 200);
      assert.equal(onlyError(await give(seats, await createUser(service.client)), 422).code, 'SEATS_EXHAUSTED');
      assert.equal((await change(path, { seats: 10 })).status, 200);
    });

    it('cannot lose its seats (null, or another licence) while some are given', async () => {
      const { path, seats } = await licence({ seats: 3 });
      const seat = await given(seats, await createUser(service.client));
      assert.equal(onlyError(await change(path, { seats: null }), 422).code, 'SEATS_GIVEN');
      assert.equal(onlyError(await change(path, { license: 'individual', seats: null }), 422).code, 'SEATS_GIVEN');
      assert.equal((await service.client.delete(`${seats}/${seat}`)).status, 204);
      assert.equal((await change(path, { seats: null })).status, 200);
    });
  });

  describe('seat events', () => {
    it('are seat.created and seat.deleted, of the licence owner', async () => {
      const { owner, seats } = await licence();
      const seat = await given(seats, await createUser(service.client));
      assert.equal((await service.client.delete(`${seats}/${seat}`)).status, 204);
      const feed = await service.client.get(`/events?filter[user]=${owner}&filter[type]=seat.created,seat.deleted`);
      assert.equal(feed.status, 200, feed.text);
      const events = feed.body.data.map((e: any) => [
        e.attributes.eventType,
        e.attributes.resourceType,
        e.attributes.resourceId,
      ]);
      assert.deepEqual(events, [
        ['seat.created', 'seats', seat],
        ['seat.deleted', 'seats', seat],
      ]);
    });
  });

  describe('erasure and deletion', () => {
    it("of a seat's holder takes the seat: the owner's list no longer names them, and no row does", async () => {
      const { seats } = await licence();
      const [erased, stays] = [await createUser(service.client), await createUser(service.client)];
      await given(seats, erased);
      await given(seats, stays);
      assert.equal((await service.client.delete(`/users/${erased}`)).status, 204);
      assert.deepEqual(await holdersOf(seats), [stays]);
      const [row] = await service.sql('SELECT count(*) AS n FROM seats WHERE holder_id = ?', [erased]);
      assert.equal(Number(row?.n), 0);
      assert.equal((await sourcesOf(stays)).length, 1);
    });

    it("of a seat's holder tells the licence's owner: a seat.deleted of theirs for each seat held", async () => {
      const [first, second] = [await licence(), await licence()];
      const erased = await createUser(service.client);
      const seats = [await given(first.seats, erased), await given(second.seats, erased)];
      assert.equal((await service.client.delete(`/users/${erased}`)).status, 204);
      for (const [i, { owner }] of [first, second].entries()) {
        const feed = await service.client.get(`/events?filter[user]=${owner}&filter[type]=seat.deleted`);
        assert.deepEqual(
          feed.body.data.map((e: any) => [e.attributes.resourceId, e.attributes.userId]),
          [[seats[i], owner]],
        );
      }
    });

    it("of a licence's owner takes the licence, its seats and its holders' access", async () => {
      const { owner, id } = await licence();
      const holder = await createUser(service.client);
      await given(`/users/${owner}/subscriptions/${id}/seats`, holder);
      assert.equal((await service.client.delete(`/users/${owner}`)).status, 204);
      assert.deepEqual(await sourcesOf(holder), []);
      for (const table of ['seats', 'seat_holders']) {
        const [row] = await service.sql(`SELECT count(*) AS n FROM ${table} WHERE subscription_id = ?`, [id]);
        assert.equal(Number(row?.n), 0, table);
      }
    });

    it("of a licence takes its seats and its holders' access", async () => {
      const { path, seats, id } = await licence();
      const holder = await createUser(service.client);
      await given(seats, holder);
      assert.equal((await service.client.delete(path)).status, 204);
      assert.deepEqual(await sourcesOf(holder), []);
      const [row] = await service.sql('SELECT count(*) AS n FROM seat_holders WHERE subscription_id = ?', [id]);
      assert.equal(Number(row?.n), 0);
    });
  });

  describe("a licence's usage", () => {
    const usageOf = async (path: string) => {
      const response = await service.client.get(`${path}/usage`);
      assert.equal(response.status, 200, response.text);
      return response.body.data;
    };

    it('counts the checks it granted by way, in the month, once a batch is added', async () => {
      const domain = `org-${randomUUID().slice(0, 8)}.example`;
      const { ip, range } = nextRange();
      const { path, seats, id } = await licence({ ipRanges: [range], emailDomains: [domain] });
      const byDomain = await createUser(service.client, { email: `reader@${domain}` });
      const bySeat = await createUser(service.client);
      await given(seats, bySeat);
      await service.client.get(`/access?filter[ip]=${ip}`);
      await service.client.get(`/access?filter[ip]=${ip}`);
      await service.client.get(`/users/${byDomain}/access`);
      await service.client.get(`/users/${bySeat}/access`);
      await service.client.get(`/users/${bySeat}/access`);
      await service.client.get(`/users/${bySeat}/access`);
      await service.app.licenceUsage.flush();
      const usage = await usageOf(path);
      assert.equal(usage.type, 'licence-usage');
      assert.equal(usage.id, id);
      assert.deepEqual(usage.attributes.months, [
        { month: monthOf(nowInSeconds()), counts: { ip: 2, 'email-domain': 1, seat: 3 }, total: 6 },
      ]);
      // A second batch adds to the first.
      await service.client.get(`/access?filter[ip]=${ip}`);
      await service.app.licenceUsage.flush();
      assert.equal((await usageOf(path)).attributes.months[0].counts.ip, 3);
    });

    it('writes nothing for a check: the counts are in no table until a batch is added', async () => {
      const { ip, range } = nextRange();
      const { path, id } = await licence({ ipRanges: [range] });
      await service.app.licenceUsage.flush();
      for (let i = 0; i < 5; i++) assert.equal((await service.client.get(`/access?filter[ip]=${ip}`)).status, 200);
      const [row] = await service.sql('SELECT count(*) AS n FROM licence_usage WHERE subscription_id = ?', [id]);
      assert.equal(Number(row?.n), 0);
      assert.deepEqual((await usageOf(path)).attributes.months, []);
      await service.app.licenceUsage.flush();
      assert.equal((await usageOf(path)).attributes.months[0].counts.ip, 5);
    });

    it('counts nothing for a licence that granted nothing (expired, or only print)', async () => {
      const { ip, range } = nextRange();
      const print = await licence({ ipRanges: [range], resource: 'print' });
      await service.client.get(`/access?filter[ip]=${ip}`);
      await service.app.licenceUsage.flush();
      assert.deepEqual((await usageOf(print.path)).attributes.months, []);
    });

    it('drops the counts of a licence deleted before its batch, and adds the others', async () => {
      const [first, second] = [nextRange(), nextRange()];
      const gone = await licence({ ipRanges: [first.range] });
      const kept = await licence({ ipRanges: [second.range] });
      await service.client.get(`/access?filter[ip]=${first.ip}`);
      await service.client.get(`/access?filter[ip]=${second.ip}`);
      assert.equal((await service.client.delete(gone.path)).status, 204);
      await service.app.licenceUsage.flush();
      assert.equal((await usageOf(kept.path)).attributes.months[0].counts.ip, 1);
    });

    it('is 404 for a subscription the user does not have', async () => {
      const owner = await createUser(service.client);
      assert.equal((await service.client.get(`/users/${owner}/subscriptions/999999999/usage`)).status, 404);
    });
  });
});
