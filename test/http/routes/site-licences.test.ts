/**
 * Site licences through the API on every store, Citus too (where their keys are reference tables
 * and the licences sharded by owner): a `site` subscription's networks, email domains and seats
 * (refused on any other licence, each range and domain checked at its element, bounded in
 * number), the access they give a network (`GET /access?filter[ip]=`) and the readers at their
 * domains (`GET /users/{id}/access`), and the `access` credential that may ask only those.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_EMAIL_DOMAINS, MAX_IP_RANGES } from '../../../src/domain/site-licence.js';
import { importFile } from '../../../src/transfer/import.js';
import {
  createSubscription,
  createUser,
  issueKey,
  onlyError,
  subscriptionDocument,
  subscriptionValues,
} from '../../support/fixtures.js';
import { forEachStoreAndCitus } from '../../support/citus.js';
import { startService, type Service } from '../../support/service.js';

const FAR = '2099-01-01T00:00:00+00:00';
const PAST = '2020-01-01T00:00:00+00:00';

/** A fresh /16 of 10/8 each time, so that no test's licences hold another's addresses (no other test uses 10/8). */
let networks = 0;
const nextNetwork = () => {
  networks += 1;
  return { prefix: `10.${networks}`, range: `10.${networks}.0.0/16` };
};
const nextDomain = () => `org-${randomUUID().slice(0, 8)}.example`;

forEachStoreAndCitus((kind) => {
  let service: Service;
  before(async () => {
    service = await startService(kind);
  });
  after(() => service.close());

  /** A site licence of a new owner, online to far ahead unless `attributes` say otherwise; its path. */
  async function licence(attributes: Record<string, unknown>) {
    const owner = await createUser(service.client);
    const response = await service.client.post(
      `/users/${owner}/subscriptions`,
      subscriptionDocument({ license: 'site', dateStarted: PAST, dateEnded: FAR, ...attributes }),
    );
    assert.equal(response.status, 201, response.text);
    const id: string = response.body.data.id;
    return { owner, id, path: `/users/${owner}/subscriptions/${id}`, data: response.body.data };
  }

  const network = async (ip: string) => {
    const response = await service.client.get(`/access?filter[ip]=${encodeURIComponent(ip)}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  };
  const licencesOf = async (ip: string) =>
    (await network(ip)).relationships.subscriptions.data.map((s: { id: string }) => s.id);
  const readerAccess = async (userId: string) => {
    const response = await service.client.get(`/users/${userId}/access`);
    assert.equal(response.status, 200, response.text);
    return response.body.data.attributes;
  };

  describe('a site licence’s terms', () => {
    it('takes networks, domains and seats, and returns them in their one written form', async () => {
      const { data, path } = await licence({
        ipRanges: ['192.0.2.7', '100.64.0.0/16', '2001:DB8:0:0::/32', '2001:db8:1::7'],
        emailDomains: ['Acme.COM', '*.Acme.com'],
        seats: 25,
      });
      const expected = {
        ipRanges: ['192.0.2.7/32', '100.64.0.0/16', '2001:db8::/32', '2001:db8:1::7/128'],
        emailDomains: ['acme.com', '*.acme.com'],
        seats: 25,
      };
      const terms = (attributes: Record<string, unknown>) => ({
        ipRanges: attributes.ipRanges,
        emailDomains: attributes.emailDomains,
        seats: attributes.seats,
      });
      assert.deepEqual(terms(data.attributes), expected);
      assert.deepEqual(terms((await service.client.get(path)).body.data.attributes), expected);
      const changed = await service.client.patch(path, {
        data: { type: 'subscriptions', id: data.id, attributes: { ipRanges: ['100.65.0.0/16'], seats: null } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(terms(changed.body.data.attributes), { ...expected, ipRanges: ['100.65.0.0/16'], seats: null });
    });

    it('shows no terms on another licence, and accepts them there empty or null', async () => {
      const owner = await createUser(service.client);
      const response = await service.client.post(
        `/users/${owner}/subscriptions`,
        subscriptionDocument({ license: 'individual', ipRanges: [], emailDomains: null, seats: null }),
      );
      assert.equal(response.status, 201, response.text);
      for (const name of ['ipRanges', 'emailDomains', 'seats']) assert.ok(!(name in response.body.data.attributes));
    });

    it('refuses them on any other licence, at each one sent', async () => {
      const owner = await createUser(service.client);
      for (const license of ['individual', 'free', null, undefined]) {
        const response = await service.client.post(
          `/users/${owner}/subscriptions`,
          subscriptionDocument({ license, ipRanges: ['10.0.0.0/8'], emailDomains: ['acme.com'], seats: 3 }),
        );
        assert.equal(response.status, 422, response.text);
        assert.deepEqual(
          response.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer),
          ['/data/attributes/ipRanges', '/data/attributes/emailDomains', '/data/attributes/seats'],
          String(license),
        );
      }
      const individual = await createSubscription(service.client, owner);
      const path = `/users/${owner}/subscriptions/${individual}`;
      const seats = await service.client.patch(path, {
        data: { type: 'subscriptions', id: individual, attributes: { seats: 2 } },
      });
      assert.equal(onlyError(seats, 422).source.pointer, '/data/attributes/seats');
    });

    it('keeps a licence site while it has terms, and lets it go with them in one write', async () => {
      const { path, id } = await licence({ emailDomains: [nextDomain()] });
      const refused = await service.client.patch(path, {
        data: { type: 'subscriptions', id, attributes: { license: 'individual' } },
      });
      const error = onlyError(refused, 422);
      assert.equal(error.source.pointer, '/data/attributes/license');
      assert.match(error.detail, /emailDomains/);
      const changed = await service.client.patch(path, {
        data: { type: 'subscriptions', id, attributes: { license: 'individual', emailDomains: null } },
      });
      assert.equal(changed.status, 200, changed.text);
      assert.ok(!('emailDomains' in changed.body.data.attributes));
    });

    it('refuses each range and domain a licence may not hold, at its element, all in one answer', async () => {
      const owner = await createUser(service.client);
      const response = await service.client.post(
        `/users/${owner}/subscriptions`,
        subscriptionDocument({
          license: 'site',
          ipRanges: [
            '10.0.0.0/8',
            'not-an-address',
            '10.0.0.0/7',
            '0.0.0.0/0',
            '::/0',
            '2001:db8::/31',
            '10.1.2.3/8',
            '010.0.0.0/8',
            'fe80::%eth0/64',
            '::ffff:10.0.0.0/104',
            '10.0.0.0/8',
            '127.0.0.0/8',
          ],
          emailDomains: ['com', 'co.uk', '*.co.uk', 'acme..com', 'acme.com', 'ACME.com', 'gmail.com'],
        }),
      );
      assert.equal(response.status, 422, response.text);
      const at = Object.fromEntries(
        response.body.errors.map((e: { source: { pointer: string }; detail: string }) => [e.source.pointer, e.detail]),
      );
      const refused = [
        ...[0, 1, 2, 3, 5, 6].map((i) => `/data/attributes/emailDomains/${i}`),
        ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((i) => `/data/attributes/ipRanges/${i}`),
      ];
      assert.deepEqual(Object.keys(at).sort(), refused.sort());
      assert.match(at['/data/attributes/ipRanges/3'], /wider than a licence may be/);
      assert.match(at['/data/attributes/ipRanges/6'], /host bits set.*10\.0\.0\.0\/8/);
      assert.match(at['/data/attributes/ipRanges/7'], /leading zero/);
      assert.match(at['/data/attributes/ipRanges/8'], /zone id/);
      assert.match(at['/data/attributes/ipRanges/9'], /IPv4-mapped/);
      assert.match(at['/data/attributes/ipRanges/10'], /repeats element 0/);
      assert.match(at['/data/attributes/emailDomains/1'], /public suffix/);
      assert.match(at['/data/attributes/emailDomains/5'], /repeats element 4/);
      assert.match(at['/data/attributes/ipRanges/11'], /loopback: no reader's request comes from it/);
      assert.match(at['/data/attributes/emailDomains/6'], /mail provider anyone may take an address at/);
    });

    it(`holds at most ${MAX_IP_RANGES} ranges and ${MAX_EMAIL_DOMAINS} domains, and seats from 1`, async () => {
      const ranges = (n: number) => Array.from({ length: n }, (_, i) => `172.16.${Math.floor(i / 256)}.${i % 256}`);
      const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.${nextDomain()}`);
      const owner = await createUser(service.client);
      const post = (attributes: Record<string, unknown>) =>
        service.client.post(
          `/users/${owner}/subscriptions`,
          subscriptionDocument({ license: 'site', dateEnded: null, ...attributes }),
        );
      const full = await post({ ipRanges: ranges(MAX_IP_RANGES), emailDomains: domains(MAX_EMAIL_DOMAINS), seats: 1 });
      assert.equal(full.status, 201, full.text.slice(0, 500));
      assert.equal(full.body.data.attributes.ipRanges.length, MAX_IP_RANGES);
      const tooMany = onlyError(await post({ ipRanges: ranges(MAX_IP_RANGES + 1) }), 422);
      assert.deepEqual(tooMany.source, { pointer: '/data/attributes/ipRanges' });
      assert.match(tooMany.detail, new RegExp(`maximum is ${MAX_IP_RANGES}`));
      const tooManyDomains = onlyError(await post({ emailDomains: domains(MAX_EMAIL_DOMAINS + 1) }), 422);
      assert.deepEqual(tooManyDomains.source, { pointer: '/data/attributes/emailDomains' });
      assert.equal(onlyError(await post({ seats: 0 }), 422).source.pointer, '/data/attributes/seats');
      assert.equal((await post({ ipRanges: ranges(1), seats: null })).status, 201);
      // The full licence's every range is found: the last as well as the first.
      assert.deepEqual(await licencesOf(`172.16.0.${MAX_IP_RANGES - 1}`), [full.body.data.id]);
    });

    it('names the terms a change sent in its event, as every attribute', async () => {
      const { owner, id, path } = await licence({ ipRanges: [nextNetwork().range] });
      await service.client.patch(path, {
        data: { type: 'subscriptions', id, attributes: { emailDomains: [nextDomain()], seats: 5 } },
      });
      const events = (
        await service.client.get(`/events?filter[user]=${owner}&filter[type]=subscription.created,subscription.updated`)
      ).body.data;
      assert.deepEqual(
        events.map((e: { attributes: { eventType: string; changed: string[] } }) => [
          e.attributes.eventType,
          e.attributes.changed,
        ]),
        [
          ['subscription.created', ['dateEnded', 'dateStarted', 'ipRanges', 'license', 'resource', 'trial']],
          ['subscription.updated', ['emailDomains', 'seats']],
        ],
      );
    });
  });

  describe('GET /access?filter[ip]=', () => {
    it('grants online, never print, from every active licence whose ranges hold the address, overlapping ones too', async () => {
      const { prefix, range } = nextNetwork();
      const wide = await licence({ ipRanges: [range], resource: 'print-online', dateEnded: null });
      const narrow = await licence({ ipRanges: [`${prefix}.7.0/24`], dateEnded: FAR });
      const host = await licence({ ipRanges: [`${prefix}.7.9`], dateEnded: '2098-01-01T00:00:00+00:00' });
      const data = await network(`${prefix}.7.9`);
      assert.equal(data.type, 'access');
      assert.equal(data.id, `${prefix}.7.9`);
      assert.deepEqual(data.attributes, { online: true, print: false, until: null, products: [] });
      assert.deepEqual(
        data.relationships.subscriptions.data,
        [wide, narrow, host].map((l) => ({ type: 'subscriptions', id: l.id })),
      );
      assert.equal(data.links.self, `${service.baseUrl}/access?filter%5Bip%5D=${prefix}.7.9`);
      assert.deepEqual(await licencesOf(`${prefix}.7.10`), [wide.id, narrow.id]);
      assert.deepEqual(await licencesOf(`${prefix}.8.9`), [wide.id]);
      assert.equal((await network(`${prefix}.8.9`)).attributes.until, null);
    });

    it('answers an address no licence holds with online false', async () => {
      const data = await network('203.0.113.77');
      assert.deepEqual(data.attributes, { online: false, print: false, until: null, products: [] });
      assert.deepEqual(data.relationships.subscriptions.data, []);
    });

    it('finds an IPv4 licence by its IPv4-mapped IPv6 address, and IPv6 licences by theirs', async () => {
      const { prefix, range } = nextNetwork();
      const v4 = await licence({ ipRanges: [range] });
      const v6 = await licence({ ipRanges: ['2001:db8:ab00::/40'] });
      const mapped = await network(`::ffff:${prefix}.1.2`);
      assert.equal(mapped.id, `::ffff:${prefix}.1.2`);
      assert.deepEqual(await licencesOf(`::FFFF:${prefix}.1.2`), [v4.id]);
      assert.ok((await licencesOf('2001:db8:abcd::1')).includes(v6.id));
      assert.ok(!(await licencesOf('2001:db8:ac00::1')).includes(v6.id));
      assert.equal((await network('2001:DB8:ABCD:0:0:0:0:1')).id, '2001:db8:abcd::1');
    });

    it('grants nothing from a licence expired, ended, not yet begun, or giving only print', async () => {
      const { prefix, range } = nextNetwork();
      const expired = await licence({ ipRanges: [range] });
      assert.equal((await service.client.put(`${expired.path}/expire`)).status, 200);
      await licence({ ipRanges: [range], dateStarted: PAST, dateEnded: '2021-01-01T00:00:00+00:00' });
      await licence({ ipRanges: [range], dateStarted: FAR, dateEnded: null });
      await licence({ ipRanges: [range], resource: 'print' });
      const data = await network(`${prefix}.0.1`);
      assert.deepEqual(data.attributes, { online: false, print: false, until: null, products: [] });
      assert.deepEqual(data.relationships.subscriptions.data, []);
    });

    it('follows a change of ranges, a deletion and the erasure of the owner', async () => {
      const first = nextNetwork();
      const second = nextNetwork();
      const { owner, id, path } = await licence({ ipRanges: [first.range] });
      await service.client.patch(path, {
        data: { type: 'subscriptions', id, attributes: { ipRanges: [second.range] } },
      });
      assert.deepEqual(await licencesOf(`${first.prefix}.0.1`), []);
      assert.deepEqual(await licencesOf(`${second.prefix}.0.1`), [id]);
      assert.equal((await service.client.delete(path)).status, 204);
      assert.deepEqual(await licencesOf(`${second.prefix}.0.1`), []);
      const other = await licence({ ipRanges: [second.range], emailDomains: [nextDomain()] });
      assert.equal((await service.client.delete(`/users/${other.owner}`)).status, 204);
      assert.deepEqual(await licencesOf(`${second.prefix}.0.1`), []);
      const keys = await service.sql(
        'SELECT (SELECT count(*) FROM site_ranges WHERE user_id IN (?, ?)) + (SELECT count(*) FROM site_domains WHERE user_id IN (?, ?)) AS n',
        [owner, other.owner, owner, other.owner],
      );
      assert.equal(Number(keys[0]?.n), 0);
    });

    it('finds the licences imported in one batch, with or without the audit trail, as ones made through the API', async () => {
      const networks = [nextNetwork(), nextNetwork()];
      const domains = [nextDomain(), nextDomain()];
      const started = Math.floor(Date.now() / 1000) - 3600;
      for (const audit of [{ actor: 'import', attributes: [] }, null]) {
        const owners = await service.store.users.import(
          networks.map(({ range }, i) => ({
            user: {
              email: `${randomUUID()}@${domains[i]}`,
              passwordHash: null,
              fields: { familyName: 'Owner' },
              newsletters: [],
            },
            subscriptions: [
              subscriptionValues({
                dateStarted: started,
                license: 'site',
                resource: 'online',
                ipRanges: [range],
                emailDomains: [domains[i] as string],
                seats: 10,
              }),
            ],
          })),
          audit,
        );
        const ids = (await service.store.subscriptions.listOfUsers(owners as string[])).map((s) => s.id);
        assert.equal(ids.length, 2);
        for (const [i, { prefix }] of networks.entries()) {
          const found = await licencesOf(`${prefix}.3.4`);
          assert.ok(ids.some((id) => found.includes(id)), `the licence of ${prefix}/16 is found`);
          assert.ok(!ids.every((id) => found.includes(id)), `only the licence of ${prefix}/16 is found (${i})`);
        }
      }
      for (const [i, { prefix }] of networks.entries()) {
        assert.equal((await licencesOf(`${prefix}.3.4`)).length, 2);
        const reader = await createUser(service.client, { email: `reader@${domains[i]}` });
        assert.equal((await readerAccess(reader)).sources.length, 2);
      }
    });

    it('imports a file of licences (CSV) as the API makes them, and a second run of it changes nothing', async () => {
      const { prefix, range } = nextNetwork();
      const domain = nextDomain();
      const dir = mkdtempSync(join(tmpdir(), 'licences-'));
      const file = join(dir, 'licences.csv');
      // No externalIdentifier: a run matches a reader's subscription by every value, lists included.
      writeFileSync(
        file,
        'email,familyName,subscription.dateStarted,subscription.license,subscription.resource,subscription.ipRanges,subscription.emailDomains,subscription.seats\n' +
          `owner@${domain},Owner,2020-01-01T00:00:00Z,site,online,${range};2001:db8:77::/48,${domain},12\n`,
      );
      try {
        const rejected: unknown[] = [];
        const run = () =>
          importFile(service.store, file, {
            format: 'csv',
            audit: { actor: 'import', attributes: [] },
            onRejected: async (rejection) => {
              rejected.push(rejection);
            },
          });
        const first = await run();
        assert.deepEqual([first.created, first.subscriptionsAdded, first.subscriptionsRejected], [1, 1, 0]);
        const [licence] = await licencesOf(`${prefix}.9.9`);
        assert.ok(licence);
        const owner = (await service.client.get(`/users?filter[email]=owner@${domain}`)).body.data[0].id;
        const created = await service.client.get(`/events?filter[user]=${owner}&filter[type]=subscription.created`);
        assert.deepEqual(created.body.data[0].attributes.changed, [
          'dateStarted',
          'emailDomains',
          'ipRanges',
          'license',
          'resource',
          'seats',
          'trial',
        ]);
        assert.deepEqual(await licencesOf('2001:db8:77::1'), [licence]);
        const second = await run();
        assert.deepEqual([second.unchanged, second.subscriptionsAdded], [1, 0]);
        assert.deepEqual(await licencesOf(`${prefix}.9.9`), [licence]);
        assert.deepEqual(rejected, []);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('answers a malformed address with a 400 at filter[ip]', async () => {
      for (const ip of ['nonsense', '010.0.0.1', 'fe80::1%eth0', '10.0.0.0/8', '', '1::2::3']) {
        const error = onlyError(await service.client.get(`/access?filter[ip]=${encodeURIComponent(ip)}`), 400);
        assert.deepEqual(error.source, { parameter: 'filter[ip]' }, ip);
      }
      assert.deepEqual(onlyError(await service.client.get('/access'), 400).source, { parameter: 'filter[ip]' });
      assert.match(onlyError(await service.client.get('/access?filter[ip]=010.0.0.1'), 400).detail, /leading zero/);
    });
  });

  describe('GET /users/{id}/access through an email domain', () => {
    it("grants a reader at a licence's domain, exactly or below a wildcard, and names it as the source", async () => {
      const domain = nextDomain();
      const exact = await licence({ emailDomains: [domain], resource: 'print-online', dateEnded: FAR });
      const below = await licence({ emailDomains: [`*.${domain}`], dateEnded: null });
      const atDomain = await createUser(service.client, { email: `Reader@${domain.toUpperCase()}` });
      assert.deepEqual(await readerAccess(atDomain), {
        online: true,
        print: false,
        until: FAR,
        products: [],
        sources: [{ subscription: exact.id, via: 'email-domain' }],
      });
      const deeper = await createUser(service.client, { email: `reader@a.b.${domain}` });
      assert.deepEqual((await readerAccess(deeper)).sources, [{ subscription: below.id, via: 'email-domain' }]);
      assert.equal((await readerAccess(deeper)).until, null);
      const evil = await createUser(service.client, { email: `reader@evil${domain}` });
      assert.deepEqual(await readerAccess(evil), {
        online: false,
        print: false,
        until: null,
        products: [],
        sources: [],
      });
    });

    it("lists the reader's own subscriptions first, their own licence once, and nothing from an expired licence", async () => {
      const domain = nextDomain();
      const reader = await createUser(service.client, { email: `reader@${domain}` });
      const own = await createSubscription(service.client, reader, { resource: 'print', dateEnded: null });
      const ownLicence = await service.client.post(
        `/users/${reader}/subscriptions`,
        subscriptionDocument({ license: 'site', emailDomains: [domain], dateStarted: PAST, dateEnded: null }),
      );
      const expired = await licence({ emailDomains: [domain] });
      await service.client.put(`${expired.path}/expire`);
      const access = await readerAccess(reader);
      assert.deepEqual(access.sources, [
        { subscription: own, via: 'own' },
        { subscription: ownLicence.body.data.id, via: 'own' },
      ]);
      assert.equal(access.print, true);
    });

    it("follows the reader's email to another domain", async () => {
      const domain = nextDomain();
      const granted = await licence({ emailDomains: [domain] });
      const reader = await createUser(service.client, { email: `reader@${nextDomain()}` });
      assert.deepEqual((await readerAccess(reader)).sources, []);
      const moved = await service.client.put(`/users/${reader}`, {
        data: { type: 'users', id: reader, attributes: { email: `reader@${domain}` } },
      });
      assert.equal(moved.status, 204, moved.text);
      assert.deepEqual((await readerAccess(reader)).sources, [{ subscription: granted.id, via: 'email-domain' }]);
    });

    it('is a 404 for no such user', async () => {
      assert.equal((await service.client.get('/users/999999999/access')).status, 404);
    });
  });

  describe('GET /users?filter[licenceDomain]=', () => {
    const owners = async (query: string) => {
      const response = await service.client.get(`/users?${query}`);
      assert.equal(response.status, 200, response.text);
      return response.body.data.map((u: { id: string }) => u.id);
    };

    it('finds the owners of the licences for a domain: at it, above it, below it, active or not, ANDed', async () => {
      const domain = nextDomain();
      const exact = await licence({ emailDomains: ['other.example', domain.toUpperCase()] });
      const wildcard = await licence({ emailDomains: [`*.${domain}`] });
      await service.client.put(`${wildcard.path}/expire`);
      const below = await licence({ emailDomains: [`evil${domain}`, `sub.${domain}`] });
      await createUser(service.client, { email: `reader@${domain}` });
      assert.deepEqual(await owners(`filter[licenceDomain]=${domain.toUpperCase()}`), [exact.owner, wildcard.owner]);
      assert.deepEqual(await owners(`filter[licenceDomain]=sub.${domain}`), [wildcard.owner, below.owner]);
      assert.deepEqual(await owners(`filter[licenceDomain]=*.${domain}`), [wildcard.owner]);
      assert.deepEqual(await owners(`filter[licenceDomain]=${domain}&filter[status]=active`), [exact.owner]);
      const { email } = (await service.client.get(`/users/${exact.owner}`)).body.data.attributes;
      assert.deepEqual(await owners(`filter[licenceDomain]=${domain}&filter[email]=${email}`), [exact.owner]);
      const searched = await service.client.get(
        `/users?filter[licenceDomain]=${domain}&filter[q]=${email}&sort=relevance&include=subscriptions`,
      );
      assert.deepEqual(
        searched.body.data.map((u: { id: string }) => u.id),
        [exact.owner],
      );
      assert.deepEqual(
        searched.body.included.map((s: { id: string }) => s.id),
        [exact.id],
      );
      assert.deepEqual(await owners('filter[licenceDomain]=nobody.example'), []);
    });

    it('refuses a value that is no domain name with a 400 at the parameter', async () => {
      const error = onlyError(await service.client.get('/users?filter[licenceDomain]=@uni.example'), 400);
      assert.equal(error.source.parameter, 'filter[licenceDomain]');
      assert.match(error.detail, /is not a domain name/);
    });
  });

  describe('the access credential', () => {
    it('may ask both access checks and nothing else', async () => {
      const { secret } = await issueKey(service.client, ['access']);
      const paywall = service.client.as(secret);
      const reader = await createUser(service.client);
      assert.equal((await paywall.get(`/users/${reader}/access`)).status, 200);
      assert.equal((await paywall.get('/access?filter[ip]=192.0.2.1')).status, 200);
      for (const path of ['/users', `/users/${reader}`, `/users/${reader}/subscriptions`, '/events', '/products']) {
        assert.equal(onlyError(await paywall.get(path), 403).code, 'SCOPE_INSUFFICIENT', path);
      }
      const { secret: reading } = await issueKey(service.client, ['read']);
      assert.equal((await service.client.as(reading).get('/access?filter[ip]=192.0.2.1')).status, 200);
      const { secret: signIn } = await issueKey(service.client, ['sign-in']);
      assert.equal((await service.client.as(signIn).get('/access?filter[ip]=192.0.2.1')).status, 403);
    });
  });
});
