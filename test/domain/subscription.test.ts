import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainFailure } from '../../src/domain/failures.js';
import {
  changedSubscription,
  groupByUser,
  newSubscription,
  requireProductDeliveryDays,
  subscriptionAttributeNames,
  subscriptionCreateRuleProblems,
  subscriptionRuleProblems,
  toSubscriptionAttributes,
  toSubscriptionRelationships,
  type StoredSubscription,
  type SubscriptionValues,
} from '../../src/domain/subscription.js';

const seconds = (iso: string) => Date.parse(iso) / 1000;

const JAN_2025 = '2025-01-01T00:00:00+00:00';
const JAN_2026 = '2026-01-01T00:00:00+00:00';

/** Asserts an invalid-attribute failure with one problem, at dateEnded. */
function isDateOrderError(error: unknown): boolean {
  assert.ok(error instanceof DomainFailure);
  assert.equal(error.code, 'INVALID_ATTRIBUTE');
  assert.equal(error.problems.length, 1);
  assert.deepEqual(error.problems, [
    { pointer: '/data/attributes/dateEnded', detail: 'must not be before dateStarted' },
  ]);
  return true;
}

function current(overrides: Partial<SubscriptionValues> = {}): SubscriptionValues {
  return {
    dateStarted: seconds(JAN_2025),
    dateEnded: seconds(JAN_2026),
    externalIdentifier: 'ext-1',
    license: 'individual',
    resource: 'online',
    trial: false,
    productId: 'digital-annual',
    deliveryDays: null,
    ipRanges: [],
    emailDomains: [],
    seats: null,
    ...overrides,
  };
}

describe('newSubscription', () => {
  it('defaults every optional value: no end, nulls and trial false', () => {
    assert.deepEqual(newSubscription({ dateStarted: JAN_2025 }, null), {
      dateStarted: seconds(JAN_2025),
      dateEnded: null,
      externalIdentifier: null,
      license: null,
      resource: null,
      trial: false,
      productId: null,
      deliveryDays: null,
      ipRanges: [],
      emailDomains: [],
      seats: null,
    });
  });

  it('keeps every sent value, dates as epoch seconds, and the product id', () => {
    const values = newSubscription(
      {
        dateStarted: '2025-01-01T02:00:00+02:00',
        dateEnded: '2026-01-01T00:00:00Z',
        externalIdentifier: 'abc',
        license: 'site',
        resource: 'print-online',
        trial: true,
      },
      'print-weekly',
    );
    assert.deepEqual(values, {
      dateStarted: seconds(JAN_2025),
      dateEnded: seconds(JAN_2026),
      externalIdentifier: 'abc',
      license: 'site',
      resource: 'print-online',
      trial: true,
      productId: 'print-weekly',
      deliveryDays: null,
      ipRanges: [],
      emailDomains: [],
      seats: null,
    });
  });

  it('reads a dateEnded of null as no end', () => {
    assert.equal(newSubscription({ dateStarted: JAN_2025, dateEnded: null }, null).dateEnded, null);
  });

  it('refuses a dateEnded before dateStarted with a 422 at dateEnded', () => {
    assert.throws(() => newSubscription({ dateStarted: JAN_2026, dateEnded: JAN_2025 }, null), isDateOrderError);
  });

  it('compares the instants, not the text, when offsets differ', () => {
    // 01:00+02:00 is 23:00 UTC the day before, so this ends before it starts
    assert.throws(
      () => newSubscription({ dateStarted: '2025-01-01T00:00:00Z', dateEnded: '2025-01-01T01:00:00+02:00' }, null),
      isDateOrderError,
    );
  });

  it('allows a subscription that ends when it starts', () => {
    const values = newSubscription({ dateStarted: JAN_2025, dateEnded: JAN_2025 }, null);
    assert.equal(values.dateEnded, values.dateStarted);
  });
});

describe('changedSubscription', () => {
  it('changes only the attributes sent', () => {
    assert.deepEqual(changedSubscription(current(), { license: 'site' }, undefined), current({ license: 'site' }));
  });

  it('changes nothing when nothing is sent', () => {
    assert.deepEqual(changedSubscription(current(), {}, undefined), current());
  });

  it('does not modify the current values it is given', () => {
    const before = current();
    changedSubscription(before, { license: 'site', dateEnded: null }, 'other');
    assert.deepEqual(before, current());
  });

  it('clears the values sent as null', () => {
    assert.deepEqual(
      changedSubscription(
        current(),
        { dateEnded: null, externalIdentifier: null, license: null, resource: null },
        undefined,
      ),
      current({ dateEnded: null, externalIdentifier: null, license: null, resource: null }),
    );
  });

  it("writes a site licence's ranges and domains in their one form, and clears them with null", () => {
    const site = current({ license: 'site' });
    const changed = changedSubscription(
      site,
      { ipRanges: ['10.0.0.1'], emailDomains: ['ACME.com'], seats: 2 },
      undefined,
    );
    assert.deepEqual([changed.ipRanges, changed.emailDomains, changed.seats], [['10.0.0.1/32'], ['acme.com'], 2]);
    const cleared = changedSubscription(changed, { ipRanges: null, emailDomains: [], seats: null }, undefined);
    assert.deepEqual([cleared.ipRanges, cleared.emailDomains, cleared.seats], [[], [], null]);
  });

  it('refuses site terms on another licence: at each term sent, or at license when only it is', () => {
    const refusal = (at: string[]) => (error: unknown) => {
      assert.ok(error instanceof DomainFailure);
      assert.deepEqual(
        error.problems.map((p) => p.pointer),
        at.map((name) => `/data/attributes/${name}`),
      );
      return true;
    };
    assert.throws(
      () => changedSubscription(current(), { ipRanges: ['10.0.0.0/8'], seats: 1 }, undefined),
      refusal(['ipRanges', 'seats']),
    );
    const site = current({ license: 'site', emailDomains: ['acme.com'] });
    assert.throws(() => changedSubscription(site, { license: 'free' }, undefined), refusal(['license']));
    assert.deepEqual(changedSubscription(site, { license: 'free', emailDomains: null }, undefined).emailDomains, []);
    assert.throws(() => newSubscription({ dateStarted: JAN_2025, seats: 4 }, null), refusal(['seats']));
    assert.equal(
      newSubscription({ dateStarted: JAN_2025, license: 'individual', ipRanges: [] }, null).ipRanges.length,
      0,
    );
  });

  it('keeps the product when none is given, sets it when one is, and clears it with null', () => {
    assert.equal(changedSubscription(current(), {}, undefined).productId, 'digital-annual');
    assert.equal(changedSubscription(current(), {}, 'print-weekly').productId, 'print-weekly');
    assert.equal(changedSubscription(current(), {}, null).productId, null);
  });

  it('sets trial to false when false is sent', () => {
    assert.equal(changedSubscription(current({ trial: true }), { trial: false }, undefined).trial, false);
  });

  it('refuses a sent dateEnded before the current dateStarted', () => {
    assert.throws(
      () => changedSubscription(current(), { dateEnded: '2024-06-01T00:00:00Z' }, undefined),
      isDateOrderError,
    );
  });

  it('refuses a sent dateStarted after the current dateEnded', () => {
    assert.throws(
      () => changedSubscription(current(), { dateStarted: '2027-01-01T00:00:00Z' }, undefined),
      isDateOrderError,
    );
  });

  it('allows moving both dates together past the old ones', () => {
    const next = changedSubscription(
      current(),
      { dateStarted: '2027-01-01T00:00:00Z', dateEnded: '2028-01-01T00:00:00Z' },
      undefined,
    );
    assert.equal(next.dateStarted, seconds('2027-01-01T00:00:00Z'));
    assert.equal(next.dateEnded, seconds('2028-01-01T00:00:00Z'));
  });

  it('does not re-check the order of dates when no date is sent', () => {
    // an expired subscription may have ended before the start it had planned
    const endedEarly = current({ dateStarted: seconds(JAN_2026), dateEnded: seconds(JAN_2025) });
    assert.deepEqual(changedSubscription(endedEarly, { trial: true }, undefined), { ...endedEarly, trial: true });
  });
});

describe('toSubscriptionAttributes', () => {
  it('writes dates in UTC to the second and leaves out the ids and product', () => {
    const stored = { ...current(), id: '7', userId: '3', expired: true, version: 1 };
    const attributes = toSubscriptionAttributes(stored, seconds(JAN_2025));
    assert.deepEqual(attributes, {
      dateStarted: JAN_2025,
      dateEnded: JAN_2026,
      externalIdentifier: 'ext-1',
      license: 'individual',
      resource: 'online',
      trial: false,
      expired: true,
      deliveryDays: null,
      status: 'expired',
    });
  });

  it("shows a site licence's ranges, domains and seats, and no other licence's", () => {
    const site = {
      ...current({ license: 'site', ipRanges: ['10.0.0.0/8'], seats: 3 }),
      id: '7',
      userId: '3',
      expired: false,
      version: 1,
    };
    const attributes = toSubscriptionAttributes(site, seconds(JAN_2025));
    assert.deepEqual([attributes.ipRanges, attributes.emailDomains, attributes.seats], [['10.0.0.0/8'], [], 3]);
    const individual = toSubscriptionAttributes({ ...site, license: 'individual' }, seconds(JAN_2025));
    assert.ok(!('ipRanges' in individual) && !('emailDomains' in individual) && !('seats' in individual));
  });

  it('reads an open-ended subscription back with dateEnded null, never the epoch', () => {
    const stored = { ...current({ dateEnded: null }), id: '7', userId: '3', expired: false, version: 1 };
    const attributes = toSubscriptionAttributes(stored, seconds(JAN_2026));
    assert.equal(attributes.dateEnded, null);
    assert.equal(attributes.status, 'active');
  });
});

describe('subscriptionRuleProblems: site licences', () => {
  it('points at each range and domain refused, and at each term sent with another licence', () => {
    assert.deepEqual(
      subscriptionRuleProblems({ license: 'individual', ipRanges: ['10.0.0.0/8', 'x'], emailDomains: [], seats: null }),
      [
        { pointer: '/data/attributes/ipRanges/1', detail: 'is not a CIDR range' },
        { pointer: '/data/attributes/ipRanges', detail: 'is for a site licence only (license site)' },
      ],
    );
    assert.deepEqual(
      subscriptionRuleProblems({ license: 'site', emailDomains: ['co.uk'], seats: 2 }).map((p) => p.pointer),
      ['/data/attributes/emailDomains/0'],
    );
    assert.deepEqual(subscriptionRuleProblems({ ipRanges: ['10.0.0.0/8'], seats: 2 }), []);
  });
});

describe('subscriptionRuleProblems', () => {
  const DATES_OUT_OF_ORDER = { pointer: '/data/attributes/dateEnded', detail: 'must not be before dateStarted' };

  it('finds a dateEnded before dateStarted, at dateEnded', () => {
    assert.deepEqual(subscriptionRuleProblems({ dateStarted: JAN_2026, dateEnded: JAN_2025 }), [DATES_OUT_OF_ORDER]);
  });

  it('compares instants: a second before the start is out of order, the start itself is not', () => {
    assert.deepEqual(
      subscriptionRuleProblems({ dateStarted: '2025-01-01T01:00:00+01:00', dateEnded: '2024-12-31T23:59:59Z' }),
      [DATES_OUT_OF_ORDER],
    );
    assert.deepEqual(subscriptionRuleProblems({ dateStarted: '2025-01-01T01:00:00+01:00', dateEnded: JAN_2025 }), []);
    assert.deepEqual(subscriptionRuleProblems({ dateStarted: JAN_2025, dateEnded: '2025-01-01T00:00:01Z' }), []);
  });

  it("leaves dates that are missing, null, not text or not timestamps to the schema's problems", () => {
    for (const attributes of [
      null,
      [JAN_2026, JAN_2025],
      { dateStarted: JAN_2026 },
      { dateEnded: JAN_2025 },
      { dateStarted: JAN_2026, dateEnded: null },
      { dateStarted: 1, dateEnded: JAN_2025 },
      // An array of one timestamp reads as that timestamp where it is taken for text.
      { dateStarted: [JAN_2026], dateEnded: JAN_2025 },
      { dateStarted: JAN_2026, dateEnded: [JAN_2025] },
      { dateStarted: 'soon', dateEnded: JAN_2025 },
      { dateStarted: JAN_2026, dateEnded: 'yesterday' },
    ]) {
      assert.deepEqual(subscriptionRuleProblems(attributes), [], JSON.stringify(attributes));
    }
  });
});

describe('delivery days of a subscription', () => {
  it('are kept as sent, changed when sent, cleared with null, and read back as weekdays', () => {
    const made = newSubscription({ dateStarted: JAN_2025, deliveryDays: ['monday', 'saturday'] }, null);
    assert.equal(made.deliveryDays, 0b0100001);
    const changed = changedSubscription(made, { deliveryDays: ['sunday'] }, undefined);
    assert.equal(changed.deliveryDays, 0b1000000);
    assert.equal(changedSubscription(changed, { trial: true }, undefined).deliveryDays, 0b1000000);
    assert.equal(changedSubscription(changed, { deliveryDays: null }, undefined).deliveryDays, null);
    const stored = { ...made, id: '1', userId: '2', status: 'active' } as unknown as StoredSubscription;
    assert.deepEqual(toSubscriptionAttributes(stored, 0).deliveryDays, ['monday', 'saturday']);
  });

  it("refuses days its product is not delivered on, naming the product's", () => {
    const weekdays = 0b0011111;
    assert.doesNotThrow(() => requireProductDeliveryDays(null, weekdays));
    assert.doesNotThrow(() => requireProductDeliveryDays(0b0000011, weekdays));
    assert.throws(
      () => requireProductDeliveryDays(0b0100001, weekdays),
      (error: unknown) => {
        assert.ok(error instanceof DomainFailure);
        assert.deepEqual(error.problems, [
          {
            pointer: '/data/attributes/deliveryDays',
            detail: "must be some of its product's delivery days: monday, tuesday, wednesday, thursday, friday",
          },
        ]);
        return true;
      },
    );
  });
});

describe('site terms kept or given up', () => {
  it('keeps the ranges, domains and seats a write does not send', () => {
    const site = current({ license: 'site', ipRanges: ['10.0.0.0/8'], emailDomains: ['acme.com'], seats: 3 });
    const changed = changedSubscription(site, { trial: true }, undefined);
    assert.deepEqual([changed.ipRanges, changed.emailDomains, changed.seats], [['10.0.0.0/8'], ['acme.com'], 3]);
  });

  it('names at license each term a licence leaving site still has, and only those', () => {
    const detail = (terms: Partial<SubscriptionValues>) => {
      try {
        changedSubscription(current({ license: 'site', ...terms }), { license: 'individual' }, undefined);
      } catch (error) {
        assert.ok(error instanceof DomainFailure);
        return error.problems.map((p) => `${p.pointer} ${p.detail}`);
      }
      return [];
    };
    const has = (terms: string) =>
      `/data/attributes/license must stay site while the subscription has ${terms}: send them as null in the same write`;
    assert.deepEqual(detail({ ipRanges: ['10.0.0.0/8'] }), [has('ipRanges')]);
    assert.deepEqual(detail({ emailDomains: ['acme.com'] }), [has('emailDomains')]);
    assert.deepEqual(detail({ seats: 2 }), [has('seats')]);
    assert.deepEqual(detail({ ipRanges: ['10.0.0.0/8'], emailDomains: ['acme.com'], seats: 2 }), [
      has('ipRanges, emailDomains, seats'),
    ]);
    assert.deepEqual(detail({}), []);
  });

  it('refuses a term sent with another licence at the term, with why', () => {
    assert.deepEqual(subscriptionRuleProblems({ license: 'free', seats: 2, ipRanges: [], emailDomains: null }), [
      { pointer: '/data/attributes/seats', detail: 'is for a site licence only (license site)' },
    ]);
    assert.deepEqual(subscriptionCreateRuleProblems({ seats: 2 }), [
      { pointer: '/data/attributes/seats', detail: 'is for a site licence only (license site)' },
    ]);
    assert.deepEqual(subscriptionCreateRuleProblems({ license: 'site', seats: 2 }), []);
    assert.deepEqual(subscriptionCreateRuleProblems(null), []);
  });

  it('refuses a term written to a stored subscription of another licence at the term, with why', () => {
    assert.throws(
      () => changedSubscription(current({ license: 'individual' }), { seats: 1 }, undefined),
      (error: unknown) => {
        assert.ok(error instanceof DomainFailure);
        assert.deepEqual(error.problems, [
          { pointer: '/data/attributes/seats', detail: 'is for a site licence only (license site)' },
        ]);
        return true;
      },
    );
  });
});

describe('subscriptionAttributeNames', () => {
  it('names what a subscription holds a value for, sorted; a boolean always, empty lists never', () => {
    assert.deepEqual(subscriptionAttributeNames(current({ externalIdentifier: null, dateEnded: null })), [
      'dateStarted',
      'license',
      'product',
      'resource',
      'trial',
    ]);
    const site = current({
      license: 'site',
      ipRanges: ['10.0.0.0/8'],
      emailDomains: ['acme.com'],
      seats: 1,
      deliveryDays: 1,
    });
    assert.deepEqual(subscriptionAttributeNames(site), [
      'dateEnded',
      'dateStarted',
      'deliveryDays',
      'emailDomains',
      'externalIdentifier',
      'ipRanges',
      'license',
      'product',
      'resource',
      'seats',
      'trial',
    ]);
  });
});

describe('toSubscriptionRelationships', () => {
  const stored = (productId: string | null): StoredSubscription => ({
    ...current({ productId }),
    id: '7',
    userId: '3',
    expired: false,
    version: 1,
  });

  it('names the product as a products resource identifier', () => {
    assert.deepEqual(toSubscriptionRelationships(stored('digital-annual')), {
      product: { data: { type: 'products', id: 'digital-annual' } },
    });
  });

  it('has data null without a product', () => {
    assert.deepEqual(toSubscriptionRelationships(stored(null)), { product: { data: null } });
  });
});

describe('groupByUser', () => {
  it("groups subscriptions by their user's id, each user's in the order given", () => {
    const of = (id: string, userId: string): StoredSubscription => ({
      ...current(),
      id,
      userId,
      expired: false,
      version: 1,
    });
    const grouped = groupByUser([of('1', 'a'), of('2', 'b'), of('3', 'a')]);
    assert.deepEqual(
      [...grouped].map(([user, list]) => [user, list.map((s) => s.id)]),
      [
        ['a', ['1', '3']],
        ['b', ['2']],
      ],
    );
    assert.equal(groupByUser([]).size, 0);
  });
});
