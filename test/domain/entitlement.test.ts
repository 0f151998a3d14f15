import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  accessOf,
  GIVING,
  networkAccessOf,
  readerAccessOf,
  readerGrantsOf,
  userSubscriptionFilter,
} from '../../src/domain/entitlement.js';
import { subscriptionStatus } from '../../src/domain/subscription.js';

const T = Date.UTC(2026, 5, 1) / 1000;

describe('subscriptionStatus', () => {
  const at = (dateStarted: number, dateEnded: number | null, expired = false) =>
    subscriptionStatus({ dateStarted, dateEnded, expired }, T);

  it('is active from dateStarted on, up to but not at dateEnded', () => {
    assert.equal(at(T, null), 'active');
    assert.equal(at(T - 10, T + 1), 'active');
    assert.equal(at(T - 10, T), 'ended');
  });

  it('is scheduled before dateStarted and ended after dateEnded', () => {
    assert.equal(at(T + 1, null), 'scheduled');
    assert.equal(at(T - 10, T - 5), 'ended');
  });

  it('is expired once expired, whatever the dates say', () => {
    assert.equal(at(T - 10, null, true), 'expired');
    assert.equal(at(T + 10, T - 10, true), 'expired');
  });
});

describe('GIVING', () => {
  it('finds print-online subscriptions by any resource, and print or online ones only by their own', () => {
    assert.deepEqual(GIVING, {
      online: ['online', 'print-online'],
      print: ['print', 'print-online'],
      'print-online': ['print-online'],
    });
  });
});

describe('accessOf', () => {
  it('gives nothing, until null, without active subscriptions', () => {
    assert.deepEqual(accessOf([]), { online: false, print: false, until: null, products: [] });
  });

  it('gives online for online and print-online, print for print and print-online', () => {
    const of = (resource: 'online' | 'print' | 'print-online' | null) =>
      accessOf([{ id: '1', productId: null, resource, dateEnded: T }]);
    assert.deepEqual([of('online').online, of('online').print], [true, false]);
    assert.deepEqual([of('print').online, of('print').print], [false, true]);
    assert.deepEqual([of('print-online').online, of('print-online').print], [true, true]);
    assert.deepEqual([of(null).online, of(null).print], [false, false]);
  });

  it('runs until the latest end, or has no end when one of them has none', () => {
    const ends = (...dates: (number | null)[]) =>
      accessOf(dates.map((dateEnded, i) => ({ id: String(i), productId: null, resource: 'online', dateEnded }))).until;
    assert.equal(ends(T + 10, T + 20), '2026-06-01T00:00:20+00:00');
    assert.equal(ends(T + 10, null), null);
  });

  it('names each product once, sorted', () => {
    const access = accessOf(
      ['b', 'a', 'b', null].map((productId, i) => ({
        id: String(i),
        productId,
        resource: 'online' as const,
        dateEnded: null,
      })),
    );
    assert.deepEqual(access.products, ['a', 'b']);
  });
});

describe('readerAccessOf', () => {
  const own = (id: string, resource: 'online' | 'print' | 'print-online' | null, dateEnded: number | null = T) => ({
    id,
    productId: `p${id}`,
    resource,
    dateEnded,
  });
  const licence = (id: string, resource: 'online' | 'print' | 'print-online' | null, dateEnded: number | null = T) => ({
    ...own(id, resource, dateEnded),
    userId: '99',
  });

  it('is accessOf with its sources, own ones first, each once, by id', () => {
    const access = readerAccessOf(
      [own('5', 'print'), own('3', 'online')],
      [licence('9', 'online'), licence('7', null)],
    );
    assert.deepEqual(access.sources, [
      { subscription: '3', via: 'own' },
      { subscription: '5', via: 'own' },
      { subscription: '7', via: 'email-domain' },
      { subscription: '9', via: 'email-domain' },
    ]);
    assert.deepEqual(access.products, ['p3', 'p5', 'p7', 'p9']);
    assert.equal(access.online, true);
    assert.equal(access.print, true);
  });

  it('gives online but never print through a domain; a print-only licence reaches no one else', () => {
    const printOnline = readerAccessOf([], [licence('1', 'print-online', T + 5)]);
    assert.deepEqual(printOnline, {
      online: true,
      print: false,
      until: '2026-06-01T00:00:05+00:00',
      products: ['p1'],
      sources: [{ subscription: '1', via: 'email-domain' }],
    });
    assert.deepEqual(readerAccessOf([], [licence('1', 'print')]), {
      online: false,
      print: false,
      until: null,
      products: [],
      sources: [],
    });
  });

  it('gives nothing through a domain for a licence of no resource, which gives its owner nothing either', () => {
    assert.deepEqual(readerAccessOf([], [licence('7', null, null)]), {
      online: false,
      print: false,
      until: null,
      products: ['p7'],
      sources: [{ subscription: '7', via: 'email-domain' }],
    });
  });

  it('names an own subscription listed twice once', () => {
    const access = readerAccessOf([own('6', 'online'), own('2', 'print'), own('6', 'online')], []);
    assert.deepEqual(access.sources, [
      { subscription: '2', via: 'own' },
      { subscription: '6', via: 'own' },
    ]);
  });

  it("names the reader's own licence as own, not again through its domain, with its print", () => {
    const access = readerAccessOf(
      [own('4', 'print-online')],
      [licence('4', 'print-online'), licence('4', 'print-online')],
    );
    assert.deepEqual(access.sources, [{ subscription: '4', via: 'own' }]);
    assert.equal(access.print, true);
  });

  it('names a seat’s licence via seat, after those by domain, and a licence reached both ways once, by domain', () => {
    const { access, granted } = readerGrantsOf(
      [own('2', 'online')],
      [licence('8', 'online')],
      [licence('6', 'print-online'), licence('8', 'online'), licence('2', 'online'), licence('1', 'print')],
    );
    assert.deepEqual(access.sources, [
      { subscription: '2', via: 'own' },
      { subscription: '8', via: 'email-domain' },
      { subscription: '6', via: 'seat' },
    ]);
    assert.equal(access.print, false);
    assert.deepEqual(
      granted.map((g) => [g.licence.id, g.via, g.licence.resource]),
      [
        ['8', 'email-domain', 'online'],
        ['6', 'seat', 'online'],
      ],
    );
  });

  it('runs until the latest end of both, open-ended when a licence is', () => {
    assert.equal(readerAccessOf([own('1', 'online', T)], [licence('2', 'online', null)]).until, null);
    assert.equal(
      readerAccessOf([own('1', 'online', T)], [licence('2', 'online', T + 1)]).until,
      '2026-06-01T00:00:01+00:00',
    );
  });
});

describe('networkAccessOf', () => {
  const licence = (id: string, resource: 'online' | 'print' | 'print-online' | null) => ({
    id,
    userId: '1',
    productId: null,
    resource,
    dateEnded: null,
  });

  it('grants online from each licence once, by id, never print, and leaves out print-only ones', () => {
    const { access, licences } = networkAccessOf([
      licence('8', 'print-online'),
      licence('2', 'online'),
      licence('8', 'print-online'),
      licence('5', 'print'),
    ]);
    assert.deepEqual(access, { online: true, print: false, until: null, products: [] });
    assert.deepEqual(
      licences.map((l) => l.id),
      ['2', '8'],
    );
  });

  it('grants nothing without licences', () => {
    assert.deepEqual(networkAccessOf([]), {
      access: { online: false, print: false, until: null, products: [] },
      licences: [],
    });
  });
});

describe('userSubscriptionFilter', () => {
  it('is none without filters, and active at the instant with status active', () => {
    assert.deepEqual(userSubscriptionFilter({}, T), {});
    assert.deepEqual(userSubscriptionFilter({ status: 'active', resource: 'print', product: 'p' }, T), {
      filter: { at: T, resource: 'print', product: 'p' },
    });
  });

  it('narrows by resource or product alone with status active', () => {
    assert.deepEqual(userSubscriptionFilter({ status: 'active' }, T), { filter: { at: T } });
    assert.deepEqual(userSubscriptionFilter({ status: 'active', resource: 'online' }, T), {
      filter: { at: T, resource: 'online' },
    });
    assert.deepEqual(userSubscriptionFilter({ status: 'active', product: 'p' }, T), {
      filter: { at: T, product: 'p' },
    });
  });

  it('refuses another status, an unknown resource, and a resource or product without status active', () => {
    const NEEDS_ACTIVE = 'needs status active: it narrows the users with an active subscription';
    assert.deepEqual(userSubscriptionFilter({ status: 'ended' }, T), {
      problem: { name: 'status', detail: 'can only be active: users are found by their active subscriptions' },
    });
    assert.deepEqual(userSubscriptionFilter({ status: 'active', resource: 'radio' }, T), {
      problem: { name: 'resource', detail: 'must be one of: online, print, print-online' },
    });
    assert.deepEqual(userSubscriptionFilter({ resource: 'print' }, T), {
      problem: { name: 'resource', detail: NEEDS_ACTIVE },
    });
    assert.deepEqual(userSubscriptionFilter({ resource: 'print', product: 'p' }, T), {
      problem: { name: 'resource', detail: NEEDS_ACTIVE },
    });
    assert.deepEqual(userSubscriptionFilter({ product: 'p' }, T), {
      problem: { name: 'product', detail: NEEDS_ACTIVE },
    });
  });
});
