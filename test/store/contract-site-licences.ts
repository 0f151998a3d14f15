/**
 * The store contract of site licences (part of `storeContract`): a licence's ranges and domains
 * are found by the keys of an address and of a reader's email domain, from its creation on, as
 * its terms change, and no more once it is expired, deleted or its owner erased.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseAddress } from '../../src/domain/site-licence.js';
import type { SubscriptionValues } from '../../src/domain/subscription.js';
import type { Store, StoreOptions } from '../../src/store/port.js';
import { AUDIT, subscriptionValues } from '../support/fixtures.js';

let counter = 0;
/** A /16 of 10/8 and a domain no other test of this process uses. */
function fresh() {
  counter += 1;
  return {
    prefix: `10.${counter % 250}.${Math.floor(counter / 250)}`,
    domain: `site-${process.pid}-${counter}.example`,
  };
}

function addressOf(ip: string) {
  const parsed = parseAddress(ip);
  assert.ok(parsed.ok);
  return parsed.value;
}

export function siteLicenceContract(open: (options?: StoreOptions) => Promise<Store> | Store): void {
  describe('site licences', () => {
    let store: Store;
    before(async () => {
      store = await open();
    });
    after(() => store.close());

    const now = Math.floor(Date.now() / 1000);

    async function licence(
      values: Partial<SubscriptionValues>,
      email = `owner-${process.pid}-${++counter}@owner.example`,
    ) {
      const owner = await store.users.create(
        { email, passwordHash: null, fields: { familyName: 'Owner' }, newsletters: [] },
        AUDIT,
      );
      const created = await store.subscriptions.create(
        owner.id,
        subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60, ...values }),
        AUDIT,
      );
      assert.ok(created);
      return { owner: owner.id, id: created.id };
    }

    const ofNetwork = async (ip: string) =>
      (await store.siteLicences.ofNetwork(addressOf(ip), now)).map((l) => l.id).sort();
    const ofReader = async (userId: string) =>
      ((await store.siteLicences.readerSourcesOf(userId, now))?.byDomain ?? []).map((l) => l.id).sort();

    it('finds the active licences whose ranges hold an address, overlapping ones each once, with their owner', async () => {
      const { prefix } = fresh();
      const wide = await licence({ ipRanges: [`${prefix.split('.').slice(0, 2).join('.')}.0.0/16`, `${prefix}.0/24`] });
      const host = await licence({ ipRanges: [`${prefix}.5/32`], dateEnded: now + 3600 });
      assert.deepEqual(await ofNetwork(`${prefix}.5`), [wide.id, host.id].sort());
      assert.deepEqual(await ofNetwork(`${prefix}.6`), [wide.id]);
      const [found] = await store.siteLicences.ofNetwork(addressOf(`${prefix}.5`), now);
      assert.ok(found && [wide.owner, host.owner].includes(found.userId));
      await store.subscriptions.expire(host.owner, host.id, now - 1, AUDIT);
      assert.deepEqual(await ofNetwork(`${prefix}.5`), [wide.id]);
    });

    it('finds a licence by the widest IPv6 range, /32, beside IPv4 hosts, each by its own family', async () => {
      const { prefix } = fresh();
      // A /32 of its own: 2001:1xxx::/32, no other test's.
      const block = `2001:${(0x1000 + counter).toString(16)}`;
      const wide = await licence({ ipRanges: [`${block}::/32`] });
      const host = await licence({ ipRanges: [`${prefix}.9/32`] });
      assert.deepEqual(await ofNetwork(`${block}:ffff::9`), [wide.id]);
      assert.deepEqual(await ofNetwork(`${prefix}.9`), [host.id]);
      assert.deepEqual(await ofNetwork(`${prefix}.10`), []);
    });

    it('finds them anew as their ranges change, and no more once deleted or their owner erased', async () => {
      const a = fresh();
      const b = fresh();
      const { owner, id } = await licence({ ipRanges: [`${a.prefix}.0/24`], emailDomains: [a.domain] });
      await store.subscriptions.update(owner, id, (current) => ({ ...current, ipRanges: [`${b.prefix}.0/24`] }), AUDIT);
      assert.deepEqual(await ofNetwork(`${a.prefix}.1`), []);
      assert.deepEqual(await ofNetwork(`${b.prefix}.1`), [id]);
      assert.equal(await store.subscriptions.delete(owner, id, AUDIT), true);
      assert.deepEqual(await ofNetwork(`${b.prefix}.1`), []);
      const again = await licence({ ipRanges: [`${b.prefix}.0/24`] });
      assert.equal(await store.users.delete(again.owner, AUDIT), true);
      assert.deepEqual(await ofNetwork(`${b.prefix}.1`), []);
    });

    it("finds the licences of a reader's email domain, exactly or below a wildcard, and none of no reader", async () => {
      const { domain } = fresh();
      const exact = await licence({ emailDomains: [domain] });
      const below = await licence({ emailDomains: [`*.${domain}`] });
      const reader = async (email: string) =>
        (await store.users.create({ email, passwordHash: null, fields: { familyName: 'R' }, newsletters: [] }, AUDIT))
          .id;
      assert.deepEqual(await ofReader(await reader(`r@${domain.toUpperCase()}`)), [exact.id]);
      assert.deepEqual(await ofReader(await reader(`r@x.y.${domain}`)), [below.id]);
      assert.deepEqual(await ofReader(await reader(`r@evil${domain}`)), []);
      assert.deepEqual(await ofReader('999999999'), []);
    });

    const reader = async (email: string) =>
      (await store.users.create({ email, passwordHash: null, fields: { familyName: 'R' }, newsletters: [] }, AUDIT)).id;
    const ids = (list: readonly { id: string }[]) => list.map((s) => s.id).sort();
    async function sourcesOf(from: Store, userId: string) {
      const sources = await from.siteLicences.readerSourcesOf(userId, now);
      return sources && { own: ids(sources.own), byDomain: ids(sources.byDomain) };
    }

    it("reads a reader's own subscriptions and the licences of their domain together, undefined for no reader", async () => {
      const { domain } = fresh();
      const exact = await licence({ emailDomains: [domain] });
      const below = await licence({ emailDomains: [`*.${domain}`], dateEnded: now + 3600 });
      const inside = await reader(`r@x.${domain}`);
      const own = await store.subscriptions.create(inside, subscriptionValues({ dateStarted: now - 60 }), AUDIT);
      assert.ok(own);
      assert.deepEqual(await sourcesOf(store, inside), { own: [own.id], byDomain: [below.id] });
      assert.deepEqual(await sourcesOf(store, await reader(`r@${domain}`)), { own: [], byDomain: [exact.id] });
      assert.deepEqual(await sourcesOf(store, await reader(`r@other${domain}`)), { own: [], byDomain: [] });
      // A licence's owner has it as their own, and by domain only where theirs is among its domains.
      assert.deepEqual(await sourcesOf(store, exact.owner), { own: [exact.id], byDomain: [] });
      await store.subscriptions.expire(below.owner, below.id, now - 1, AUDIT);
      assert.deepEqual(await sourcesOf(store, inside), { own: [own.id], byDomain: [] });
      assert.equal(await store.siteLicences.readerSourcesOf('999999999', now), undefined);
    });

    it('reads the licences of a domain named by the first licence of a store that had none, from its next check', async () => {
      const alone = await open();
      try {
        const { domain } = fresh();
        const inside = await alone.users.create(
          { email: `r@${domain}`, passwordHash: null, fields: { familyName: 'R' }, newsletters: [] },
          AUDIT,
        );
        assert.deepEqual(await sourcesOf(alone, inside.id), { own: [], byDomain: [] });
        assert.equal(await alone.siteLicences.readerSourcesOf('999999999', now), undefined);
        const owner = await alone.users.create(
          { email: `owner@${fresh().domain}`, passwordHash: null, fields: { familyName: 'O' }, newsletters: [] },
          AUDIT,
        );
        const values = subscriptionValues({ license: 'site', resource: 'online', dateStarted: now - 60 });
        const site = await alone.subscriptions.create(owner.id, values, AUDIT);
        assert.ok(site);
        assert.deepEqual(await sourcesOf(alone, inside.id), { own: [], byDomain: [] });
        await alone.subscriptions.update(
          owner.id,
          site.id,
          (current) => ({ ...current, emailDomains: [domain] }),
          AUDIT,
        );
        assert.deepEqual(await sourcesOf(alone, inside.id), { own: [], byDomain: [site.id] });
      } finally {
        await alone.close();
      }
    });
  });
}
