/**
 * The contract every store adapter meets, tested through the port alone: call
 * `storeContract(name, open)` from an adapter's test file. `open` gives a store over an empty
 * database; the suite closes it at the end. Every test makes its own users, with emails,
 * domains and circulation numbers no other test uses, so tests do not depend on one another.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DomainFailure, failures } from '../../src/domain/failures.js';
import type { StoredSubscription, SubscriptionValues } from '../../src/domain/subscription.js';
import { toUserFields, USER_FIELDS, type UserCreate, type UserFields } from '../../src/domain/user.js';
import type { NewUser, Store, StoreOptions, StoredUser, UserChanges } from '../../src/store/port.js';
import { AUDIT, fullUserAttributes } from '../support/fixtures.js';
import type { EventType } from '../../src/domain/events.js';
import { runOf } from '../../src/domain/delivery.js';
import { today } from '../support/print.js';
import type { ProductValues } from '../../src/domain/product.js';
import { catalogueContract } from './contract-catalogue.js';
import { seatContract } from './contract-seats.js';
import { siteLicenceContract } from './contract-site-licences.js';

const UNKNOWN_ID = '999999999';

let counter = 0;

/** A token no other test of this process uses. */
function unique(): string {
  counter += 1;
  return `${process.pid}-${counter}`;
}

/** A domain no other test uses, so a domain filter sees only this test's users. */
function uniqueDomain(): string {
  return `d-${unique()}.example`;
}

function uniqueEmail(domain = 'example.com'): string {
  return `reader-${unique()}@${domain}`;
}

/** Every profile attribute, nested objects and the JSON document included. */
function fullAttributes(): UserCreate {
  return fullUserAttributes(uniqueEmail());
}

function newUser(overrides: Partial<NewUser> = {}): NewUser {
  return {
    email: uniqueEmail(),
    passwordHash: null,
    fields: toUserFields({ familyName: 'Reader' }),
    newsletters: [],
    ...overrides,
  };
}

function userChanges(overrides: Partial<UserChanges> = {}): UserChanges {
  return { fields: {}, addNewsletters: [], removeNewsletters: [], ...overrides };
}

function subscriptionValues(overrides: Partial<SubscriptionValues> = {}): SubscriptionValues {
  return {
    dateStarted: Date.UTC(2025, 0, 1) / 1000,
    dateEnded: Date.UTC(2026, 0, 1) / 1000,
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

function productValues(resource: ProductValues['resource']): ProductValues {
  return { name: 'A product', description: null, active: true, resource, license: null, deliveryDays: 127 };
}

/** The values part of a stored subscription, as a change callback receives and returns them. */
function valuesOf(s: StoredSubscription): SubscriptionValues {
  const { dateStarted, dateEnded, externalIdentifier, license, resource, trial, productId, deliveryDays } = s;
  const { ipRanges, emailDomains, seats } = s;
  return {
    dateStarted,
    dateEnded,
    externalIdentifier,
    license,
    resource,
    trial,
    productId,
    deliveryDays,
    ipRanges,
    emailDomains,
    seats,
  };
}

function sorted(values: readonly string[]): string[] {
  return [...values].sort();
}

function ids(users: readonly StoredUser[]): string[] {
  return users.map((u) => u.id);
}

/** Asserts that `promise` rejects with exactly the emailTaken failure. */
async function rejectsWithEmailTaken(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DomainFailure, `expected a DomainFailure, got ${String(error)}`);
    assert.equal(error.code, 'EMAIL_TAKEN');
    assert.deepEqual(error.problems, failures.emailTaken().problems);
    return true;
  });
}

/** `open` gives a store over an empty database, treating references as `options` say. */
export function storeContract(
  name: string,
  open: (options?: StoreOptions) => Promise<Store> | Store,
  gaps: Record<string, string> = {},
): void {
  describe(`${name} store contract`, () => {
    catalogueContract(open, gaps);
    siteLicenceContract(open);
    seatContract(open);

    let store: Store;
    before(async () => {
      store = await open();
    });
    after(async () => {
      await store.close();
    });

    async function createUsers(count: number, make: (i: number) => Partial<NewUser>): Promise<StoredUser[]> {
      const users: StoredUser[] = [];
      for (let i = 0; i < count; i += 1) users.push(await store.users.create(newUser(make(i)), AUDIT));
      return users;
    }

    async function userWithSubscription(values: Partial<SubscriptionValues> = {}) {
      const user = await store.users.create(newUser(), AUDIT);
      const subscription = await store.subscriptions.create(user.id, subscriptionValues(values), AUDIT);
      assert.ok(subscription);
      return { user, subscription };
    }

    describe('createUser and getUser', () => {
      it('reads back every profile field, nested objects and the demographics document included', async () => {
        const attributes = fullAttributes();
        const fields = toUserFields(attributes);
        assert.deepEqual(sorted(Object.keys(fields)), sorted(USER_FIELDS), 'the fixture sets every field');
        const created = await store.users.create(
          {
            email: attributes.email,
            passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
            fields,
            newsletters: ['daily', 'weekly'],
          },
          AUDIT,
        );
        const read = await store.users.get(created.id);
        assert.ok(read);
        assert.equal(read.email, attributes.email);
        assert.deepEqual(read.fields, fields);
        assert.deepEqual(sorted(read.newsletters), ['daily', 'weekly']);
      });

      it('answers from createUser the user exactly as getUser then reads it', async () => {
        const created = await store.users.create(
          newUser({ fields: toUserFields(fullAttributes()), newsletters: ['a'] }),
          AUDIT,
        );
        assert.deepEqual(await store.users.get(created.id), created);
      });

      it('reads back as null every profile field a new user leaves out', async () => {
        const created = await store.users.create(newUser({ fields: toUserFields({ familyName: 'Minimal' }) }), AUDIT);
        const expected: UserFields = Object.fromEntries(USER_FIELDS.map((f) => [f, null]));
        expected.familyName = 'Minimal';
        assert.deepEqual((await store.users.get(created.id))?.fields, expected);
        assert.deepEqual(created.newsletters, []);
      });

      it('gives ids that are decimal strings, ascending in the order of creation', async () => {
        const [first, second] = await createUsers(2, () => ({}));
        assert.ok(first && second);
        assert.match(first.id, /^[1-9][0-9]*$/);
        assert.match(second.id, /^[1-9][0-9]*$/);
        assert.ok(BigInt(second.id) > BigInt(first.id), `${second.id} should be greater than ${first.id}`);
      });

      it('answers undefined for an unknown id', async () => {
        assert.equal(await store.users.get(UNKNOWN_ID), undefined);
      });

      it('refuses an email taken in another letter case with emailTaken', async () => {
        const email = uniqueEmail();
        await store.users.create(newUser({ email }), AUDIT);
        await rejectsWithEmailTaken(store.users.create(newUser({ email: email.toUpperCase() }), AUDIT));
      });

      it('stores nothing of a user refused for a taken email', async () => {
        const domain = uniqueDomain();
        const email = `taken@${domain}`;
        const original = await store.users.create(newUser({ email }), AUDIT);
        await rejectsWithEmailTaken(
          store.users.create(
            newUser({
              email: `TAKEN@${domain.toUpperCase()}`,
              fields: toUserFields({ familyName: 'Dup' }),
              newsletters: ['x'],
            }),
            AUDIT,
          ),
        );
        const found = (await store.users.list({ email: { domain }, offset: 0, limit: 100 })).users;
        assert.deepEqual(found, [original]);
      });
    });

    describe('users.list', () => {
      it('orders users by numeric id ascending', async () => {
        await createUsers(11, () => ({})); // ids pass from one digit to two, where text order differs
        const all = (await store.users.list({ offset: 0, limit: 100_000 })).users;
        assert.ok(all.length >= 11);
        const numeric = all.map((u) => BigInt(u.id));
        const ascending = [...numeric].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        assert.deepEqual(numeric, ascending);
      });

      it('honours offset and limit', async () => {
        const domain = uniqueDomain();
        const users = await createUsers(5, () => ({ email: uniqueEmail(domain) }));
        const page = (await store.users.list({ email: { domain }, offset: 1, limit: 2 })).users;
        assert.deepEqual(ids(page), ids(users.slice(1, 3)));
      });

      it('answers an empty list for an offset past the last user', async () => {
        const domain = uniqueDomain();
        await createUsers(2, () => ({ email: uniqueEmail(domain) }));
        assert.deepEqual((await store.users.list({ email: { domain }, offset: 2, limit: 10 })).users, []);
      });

      it('filters by the whole address, ignoring letter case', async () => {
        const domain = uniqueDomain();
        const [wanted] = await createUsers(1, () => ({ email: `Ada.Byron@${domain}` }));
        await store.users.create(newUser({ email: `ada.byron2@${domain}` }), AUDIT);
        await store.users.create(newUser({ email: `xada.byron@${domain}` }), AUDIT);
        const found = (
          await store.users.list({
            email: { address: `ADA.BYRON@${domain.toUpperCase()}` },
            offset: 0,
            limit: 10,
          })
        ).users;
        assert.deepEqual(found, [wanted]);
      });

      it('filters by domain, ignoring letter case', async () => {
        const domain = uniqueDomain();
        const users = await createUsers(2, (i) => ({ email: `r${i}@${i === 0 ? domain.toUpperCase() : domain}` }));
        const found = (await store.users.list({ email: { domain: domain.toUpperCase() }, offset: 0, limit: 10 })).users;
        assert.deepEqual(ids(found), ids(users));
      });

      it('matches the domain filter against the whole domain part only', async () => {
        const domain = uniqueDomain();
        const [wanted] = await createUsers(1, () => ({ email: `in@${domain}` }));
        await store.users.create(newUser({ email: `prefix@not${domain}` }), AUDIT);
        await store.users.create(newUser({ email: `suffix@${domain}.evil` }), AUDIT);
        await store.users.create(newUser({ email: `${domain}@other.example` }), AUDIT);
        const found = (await store.users.list({ email: { domain }, offset: 0, limit: 10 })).users;
        assert.deepEqual(ids(found), ids([wanted!]));
      });

      it('filters by the exact circulationNumber', async () => {
        const number = `C-${unique()}`;
        const [wanted] = await createUsers(1, () => ({
          fields: toUserFields({ familyName: 'A', circulationNumber: number }),
        }));
        await store.users.create(
          newUser({ fields: toUserFields({ familyName: 'B', circulationNumber: `${number}0` }) }),
          AUDIT,
        );
        await store.users.create(
          newUser({ fields: toUserFields({ familyName: 'C', circulationNumber: `x${number}` }) }),
          AUDIT,
        );
        const found = (await store.users.list({ circulationNumber: number, offset: 0, limit: 10 })).users;
        assert.deepEqual(found, [wanted]);
      });

      it('combines an email filter and a circulationNumber filter with AND', async () => {
        const domain = uniqueDomain();
        const number = `C-${unique()}`;
        const fieldsWith = (circulationNumber: string) => toUserFields({ familyName: 'R', circulationNumber });
        const [both] = await createUsers(1, () => ({ email: uniqueEmail(domain), fields: fieldsWith(number) }));
        await store.users.create(newUser({ email: uniqueEmail(domain), fields: fieldsWith(`${number}-other`) }), AUDIT);
        await store.users.create(newUser({ email: uniqueEmail(uniqueDomain()), fields: fieldsWith(number) }), AUDIT);
        const byDomain = (
          await store.users.list({ email: { domain }, circulationNumber: number, offset: 0, limit: 10 })
        ).users;
        assert.deepEqual(ids(byDomain), ids([both!]));
        const byAddress = (
          await store.users.list({
            email: { address: both!.email },
            circulationNumber: `${number}-other`,
            offset: 0,
            limit: 10,
          })
        ).users;
        assert.deepEqual(byAddress, []);
      });
    });

    describe('users.update', () => {
      it('changes only the fields it is given', async () => {
        const created = await store.users.create(
          newUser({ fields: toUserFields(fullAttributes()), newsletters: ['daily'] }),
          AUDIT,
        );
        assert.equal(
          await store.users.update(created.id, userChanges({ fields: toUserFields({ givenName: 'Augusta' }) }), AUDIT),
          true,
        );
        const read = await store.users.get(created.id);
        assert.deepEqual(read, {
          ...created,
          fields: { ...created.fields, givenName: 'Augusta' },
          version: created.version + 1,
        });
      });

      it('replaces every field of a nested object, clearing those the change leaves out', async () => {
        const created = await store.users.create(newUser({ fields: toUserFields(fullAttributes()) }), AUDIT);
        await store.users.update(
          created.id,
          userChanges({ fields: toUserFields({ address: { postalCode: 'EC1A 1BB' } }) }),
          AUDIT,
        );
        const read = await store.users.get(created.id);
        assert.deepEqual(read?.fields, {
          ...created.fields,
          'address.streetAddress': null,
          'address.unitNumber': null,
          'address.addressLocality': null,
          'address.addressRegion': null,
          'address.addressCountry': null,
          'address.postalCode': 'EC1A 1BB',
        });
      });

      it('replaces and clears the demographics document', async () => {
        const created = await store.users.create(newUser({ fields: toUserFields(fullAttributes()) }), AUDIT);
        await store.users.update(
          created.id,
          userChanges({ fields: { demographics: { recommendations: ['sport'] } } }),
          AUDIT,
        );
        assert.deepEqual((await store.users.get(created.id))?.fields.demographics, { recommendations: ['sport'] });
        await store.users.update(created.id, userChanges({ fields: { demographics: null } }), AUDIT);
        assert.equal((await store.users.get(created.id))?.fields.demographics, null);
      });

      it('changes the email, so the address filter finds the new address and not the old', async () => {
        const created = await store.users.create(newUser(), AUDIT);
        const email = uniqueEmail();
        await store.users.update(created.id, userChanges({ email }), AUDIT);
        assert.equal((await store.users.get(created.id))?.email, email);
        assert.deepEqual(ids((await store.users.list({ email: { address: email }, offset: 0, limit: 10 })).users), [
          created.id,
        ]);
        assert.deepEqual(
          (await store.users.list({ email: { address: created.email }, offset: 0, limit: 10 })).users,
          [],
        );
      });

      it('lets a user change the letter case of their own email', async () => {
        const created = await store.users.create(newUser(), AUDIT);
        const email = created.email.toUpperCase();
        assert.equal(await store.users.update(created.id, userChanges({ email }), AUDIT), true);
        assert.equal((await store.users.get(created.id))?.email, email);
      });

      it('adds and removes newsletters', async () => {
        const created = await store.users.create(newUser({ newsletters: ['a', 'b'] }), AUDIT);
        await store.users.update(created.id, userChanges({ addNewsletters: ['c'], removeNewsletters: ['a'] }), AUDIT);
        assert.deepEqual(sorted((await store.users.get(created.id))?.newsletters ?? []), ['b', 'c']);
      });

      it('adds a newsletter the user already has without error or duplicate', async () => {
        const created = await store.users.create(newUser({ newsletters: ['a'] }), AUDIT);
        assert.equal(await store.users.update(created.id, userChanges({ addNewsletters: ['a', 'b'] }), AUDIT), true);
        assert.equal(await store.users.update(created.id, userChanges({ addNewsletters: ['b'] }), AUDIT), true);
        assert.deepEqual(sorted((await store.users.get(created.id))?.newsletters ?? []), ['a', 'b']);
      });

      it('removes a newsletter the user does not have without error', async () => {
        const created = await store.users.create(newUser({ newsletters: ['a'] }), AUDIT);
        assert.equal(await store.users.update(created.id, userChanges({ removeNewsletters: ['z'] }), AUDIT), true);
        assert.deepEqual((await store.users.get(created.id))?.newsletters, ['a']);
      });

      it('answers false for an unknown id', async () => {
        assert.equal(
          await store.users.update(UNKNOWN_ID, userChanges({ fields: { givenName: 'Nobody' } }), AUDIT),
          false,
        );
        assert.equal(await store.users.get(UNKNOWN_ID), undefined);
      });

      it("refuses another user's email, in another letter case, with emailTaken", async () => {
        const other = await store.users.create(newUser(), AUDIT);
        const created = await store.users.create(newUser(), AUDIT);
        await rejectsWithEmailTaken(
          store.users.update(created.id, userChanges({ email: other.email.toUpperCase() }), AUDIT),
        );
      });

      it('leaves the user unchanged when an update is refused for a taken email', async () => {
        const other = await store.users.create(newUser(), AUDIT);
        const created = await store.users.create(
          newUser({ fields: toUserFields(fullAttributes()), newsletters: ['a'] }),
          AUDIT,
        );
        await rejectsWithEmailTaken(
          store.users.update(
            created.id,
            userChanges({
              email: other.email,
              fields: toUserFields({ givenName: 'Changed', address: null }),
              addNewsletters: ['b'],
              removeNewsletters: ['a'],
            }),
            AUDIT,
          ),
        );
        assert.deepEqual(await store.users.get(created.id), created);
      });
    });

    describe('users.delete', () => {
      it('erases the user and answers true', async () => {
        const created = await store.users.create(newUser({ newsletters: ['a'] }), AUDIT);
        assert.equal(await store.users.delete(created.id, AUDIT), true);
        assert.equal(await store.users.get(created.id), undefined);
        assert.deepEqual(
          (await store.users.list({ email: { address: created.email }, offset: 0, limit: 10 })).users,
          [],
        );
      });

      it("erases the user's subscriptions", async () => {
        const { user, subscription } = await userWithSubscription();
        await store.users.delete(user.id, AUDIT);
        assert.equal(await store.subscriptions.get(user.id, subscription.id), undefined);
        assert.equal(await store.subscriptions.list(user.id, { limit: 100 }), undefined);
      });

      it('frees the email of an erased user for a new user', async () => {
        const created = await store.users.create(newUser(), AUDIT);
        await store.users.delete(created.id, AUDIT);
        const again = await store.users.create(newUser({ email: created.email }), AUDIT);
        assert.notEqual(again.id, created.id);
      });

      it('answers false for an unknown id, and for a user already erased', async () => {
        const created = await store.users.create(newUser(), AUDIT);
        await store.users.delete(created.id, AUDIT);
        assert.equal(await store.users.delete(created.id, AUDIT), false);
        assert.equal(await store.users.delete(UNKNOWN_ID, AUDIT), false);
      });

      it('leaves other users and their subscriptions alone', async () => {
        const kept = await userWithSubscription();
        const erased = await userWithSubscription();
        await store.users.delete(erased.user.id, AUDIT);
        assert.deepEqual(await store.users.get(kept.user.id), kept.user);
        assert.deepEqual(await store.subscriptions.list(kept.user.id, { limit: 100 }), [kept.subscription]);
      });
    });

    describe('createSubscription and getSubscription', () => {
      it('stores every value and reads it back under its user, not expired', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        const values = subscriptionValues({
          dateEnded: null,
          externalIdentifier: 'abc-123',
          license: 'site',
          resource: 'print-online',
          trial: true,
          productId: 'print-weekly',
        });
        const created = await store.subscriptions.create(user.id, values, AUDIT);
        assert.ok(created);
        assert.match(created.id, /^[1-9][0-9]*$/);
        assert.deepEqual(created, { ...values, id: created.id, userId: user.id, expired: false, version: 1 });
        assert.deepEqual(await store.subscriptions.get(user.id, created.id), created);
      });

      it('stores null license, resource, externalIdentifier and productId', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        const values = subscriptionValues({ externalIdentifier: null, license: null, resource: null, productId: null });
        const created = await store.subscriptions.create(user.id, values, AUDIT);
        assert.ok(created);
        assert.deepEqual(valuesOf((await store.subscriptions.get(user.id, created.id))!), values);
      });

      it('answers undefined for an unknown user', async () => {
        assert.equal(await store.subscriptions.create(UNKNOWN_ID, subscriptionValues(), AUDIT), undefined);
      });

      it("answers undefined for a subscription asked for under another user's id", async () => {
        const { subscription } = await userWithSubscription();
        const other = await store.users.create(newUser(), AUDIT);
        assert.equal(await store.subscriptions.get(other.id, subscription.id), undefined);
      });

      it('answers undefined for an unknown subscription id', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        assert.equal(await store.subscriptions.get(user.id, UNKNOWN_ID), undefined);
      });
    });

    describe('subscriptions.list', () => {
      it("answers the user's own subscriptions in id order", async () => {
        const user = await store.users.create(newUser(), AUDIT);
        const first = await store.subscriptions.create(
          user.id,
          subscriptionValues({ externalIdentifier: 'first' }),
          AUDIT,
        );
        await userWithSubscription(); // another user's subscription, between the two
        const second = await store.subscriptions.create(
          user.id,
          subscriptionValues({ externalIdentifier: 'second' }),
          AUDIT,
        );
        assert.deepEqual(await store.subscriptions.list(user.id, { limit: 100 }), [first, second]);
      });

      it('answers an empty list for a user without subscriptions', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        assert.deepEqual(await store.subscriptions.list(user.id, { limit: 100 }), []);
      });

      it('answers undefined for an unknown user', async () => {
        assert.equal(await store.subscriptions.list(UNKNOWN_ID, { limit: 100 }), undefined);
      });

      it('answers a page at a time, after the last id seen, in either order', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        const ids: string[] = [];
        for (let i = 0; i < 5; i += 1)
          ids.push((await store.subscriptions.create(user.id, subscriptionValues(), AUDIT))!.id);
        const page = async (query: { afterId?: string; limit: number; descending?: boolean }) =>
          (await store.subscriptions.list(user.id, query))?.map((s) => s.id);
        assert.deepEqual(await page({ limit: 2 }), ids.slice(0, 2));
        assert.deepEqual(await page({ afterId: ids[1], limit: 2 }), ids.slice(2, 4));
        assert.deepEqual(await page({ afterId: ids[4], limit: 2 }), []);
        assert.deepEqual(await page({ limit: 2, descending: true }), [ids[4], ids[3]]);
        assert.deepEqual(await page({ afterId: ids[3], limit: 2, descending: true }), [ids[2], ids[1]]);
      });
    });

    describe('subscriptions.listOfUsers', () => {
      it("answers every subscription of the users, or each user's first few, by id", async () => {
        const [a, b] = await createUsers(2, () => ({}));
        const ids = new Map<string, string[]>([
          [a!.id, []],
          [b!.id, []],
        ]);
        for (let i = 0; i < 3; i += 1) {
          for (const user of [a!, b!]) {
            ids.get(user.id)!.push((await store.subscriptions.create(user.id, subscriptionValues(), AUDIT))!.id);
          }
        }
        const all = await store.subscriptions.listOfUsers([a!.id, b!.id]);
        assert.equal(all.length, 6);
        const firstTwo = await store.subscriptions.listOfUsers([a!.id, b!.id], 2);
        assert.deepEqual(
          firstTwo.map((s) => s.id),
          [...ids.get(a!.id)!.slice(0, 2), ...ids.get(b!.id)!.slice(0, 2)].sort((x, y) => Number(x) - Number(y)),
        );
      });
    });

    describe('subscriptions.update', () => {
      it('passes the current values to the change and stores what it returns', async () => {
        const { user, subscription } = await userWithSubscription();
        let seen: SubscriptionValues | undefined;
        const updated = await store.subscriptions.update(
          user.id,
          subscription.id,
          (current) => {
            seen = valuesOf(current as StoredSubscription);
            return { ...current, license: 'free', trial: true, productId: null };
          },
          AUDIT,
        );
        assert.deepEqual(seen, valuesOf(subscription));
        const expected = {
          ...subscription,
          license: 'free',
          trial: true,
          productId: null,
          version: subscription.version + 1,
        };
        assert.deepEqual(updated, expected);
        assert.deepEqual(await store.subscriptions.get(user.id, subscription.id), expected);
      });

      it('answers undefined under another user, without calling the change or changing anything', async () => {
        const { user, subscription } = await userWithSubscription();
        const other = await store.users.create(newUser(), AUDIT);
        let called = false;
        const result = await store.subscriptions.update(
          other.id,
          subscription.id,
          (current) => {
            called = true;
            return { ...current, license: 'free' };
          },
          AUDIT,
        );
        assert.equal(result, undefined);
        assert.equal(called, false);
        assert.deepEqual(await store.subscriptions.get(user.id, subscription.id), subscription);
      });

      it('passes on a failure thrown by the change and leaves the subscription unchanged', async () => {
        const { user, subscription } = await userWithSubscription();
        const refusal = failures.invalid([{ pointer: '/data/attributes/dateEnded', detail: 'no' }]);
        await assert.rejects(
          store.subscriptions.update(
            user.id,
            subscription.id,
            () => {
              throw refusal;
            },
            AUDIT,
          ),
          (error: unknown) => error === refusal,
        );
        assert.deepEqual(await store.subscriptions.get(user.id, subscription.id), subscription);
      });

      it('applies concurrent changes one after another, none lost', async () => {
        const { user, subscription } = await userWithSubscription({ externalIdentifier: '' });
        await Promise.all(
          Array.from({ length: 10 }, () =>
            store.subscriptions.update(
              user.id,
              subscription.id,
              (current) => ({
                ...current,
                externalIdentifier: `${current.externalIdentifier}x`,
              }),
              AUDIT,
            ),
          ),
        );
        assert.equal((await store.subscriptions.get(user.id, subscription.id))?.externalIdentifier, 'x'.repeat(10));
      });

      it('keeps an expired subscription expired', async () => {
        const { user, subscription } = await userWithSubscription();
        await store.subscriptions.expire(user.id, subscription.id, subscription.dateStarted + 60, AUDIT);
        const updated = await store.subscriptions.update(
          user.id,
          subscription.id,
          (current) => ({
            ...current,
            license: 'free',
          }),
          AUDIT,
        );
        assert.equal(updated?.expired, true);
        assert.equal(updated?.license, 'free');
      });
    });

    describe('subscriptions.expire', () => {
      it('marks the subscription expired with dateEnded = now', async () => {
        const { user, subscription } = await userWithSubscription();
        const now = subscription.dateStarted + 3600;
        const expired = await store.subscriptions.expire(user.id, subscription.id, now, AUDIT);
        const expected = { ...subscription, expired: true, dateEnded: now, version: subscription.version + 1 };
        assert.deepEqual(expired, expected);
        assert.deepEqual(await store.subscriptions.get(user.id, subscription.id), expected);
      });

      it('may end a subscription before the dateStarted it had planned', async () => {
        const { user, subscription } = await userWithSubscription();
        const now = subscription.dateStarted - 86_400;
        const expired = await store.subscriptions.expire(user.id, subscription.id, now, AUDIT);
        assert.equal(expired?.expired, true);
        assert.equal(expired?.dateEnded, now);
      });

      it('changes nothing when the subscription is already expired; dateEnded keeps the first value', async () => {
        const { user, subscription } = await userWithSubscription();
        const first = await store.subscriptions.expire(user.id, subscription.id, subscription.dateStarted + 10, AUDIT);
        const second = await store.subscriptions.expire(user.id, subscription.id, subscription.dateStarted + 20, AUDIT);
        assert.deepEqual(second, first);
        assert.equal(second?.dateEnded, subscription.dateStarted + 10);
      });

      it("answers undefined under another user's id and leaves the subscription as it was", async () => {
        const { user, subscription } = await userWithSubscription();
        const other = await store.users.create(newUser(), AUDIT);
        assert.equal(
          await store.subscriptions.expire(other.id, subscription.id, subscription.dateStarted + 10, AUDIT),
          undefined,
        );
        assert.deepEqual(await store.subscriptions.get(user.id, subscription.id), subscription);
      });
    });

    describe('subscriptions.delete', () => {
      it('removes the subscription and answers true, then false the second time', async () => {
        const { user, subscription } = await userWithSubscription();
        assert.equal(await store.subscriptions.delete(user.id, subscription.id, AUDIT), true);
        assert.equal(await store.subscriptions.get(user.id, subscription.id), undefined);
        assert.deepEqual(await store.subscriptions.list(user.id, { limit: 100 }), []);
        assert.equal(await store.subscriptions.delete(user.id, subscription.id, AUDIT), false);
      });

      it("answers false under another user's id and keeps the subscription", async () => {
        const { user, subscription } = await userWithSubscription();
        const other = await store.users.create(newUser(), AUDIT);
        assert.equal(await store.subscriptions.delete(other.id, subscription.id, AUDIT), false);
        assert.deepEqual(await store.subscriptions.get(user.id, subscription.id), subscription);
      });
    });

    describe('users.import', () => {
      it('inserts users with their newsletters and subscriptions, answering ascending ids in order', async () => {
        const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
        const ids = await store.users.import(
          emails.map((email, i) => ({
            user: newUser({ email, newsletters: [`n${i}`] }),
            subscriptions: [subscriptionValues(), subscriptionValues({ trial: true })],
          })),
          null,
        );
        assert.equal(ids.length, 3);
        assert.ok(Number(ids[0]) < Number(ids[1]) && Number(ids[1]) < Number(ids[2]));
        for (const [i, id] of ids.entries()) {
          const user = await store.users.get(id);
          assert.equal(user?.email, emails[i]);
          assert.deepEqual(user?.newsletters, [`n${i}`]);
          const subscriptions = await store.subscriptions.list(id, { limit: 100 });
          assert.deepEqual(
            subscriptions?.map((s) => s.trial),
            [false, true],
          );
        }
      });

      it('marks each subscription by what it gives, so that a run to come finds those giving print', async () => {
        const paper = await store.products.create(undefined, productValues('print'), AUDIT);
        const site = await store.products.create(undefined, productValues('online'), AUDIT);
        const taking = { resource: null, dateStarted: 0, dateEnded: null };
        await store.users.import(
          [
            {
              user: newUser(),
              subscriptions: [
                subscriptionValues({ ...taking, productId: paper.id }),
                subscriptionValues({ ...taking, productId: site.id }),
                subscriptionValues({ ...taking, productId: site.id, resource: 'print-online' }),
                subscriptionValues({ ...taking, productId: paper.id, resource: 'online' }),
              ],
            },
          ],
          null,
        );
        const tomorrow = runOf(today() + 1, 'UTC');
        const delivered = async (product: string) =>
          (await store.deliveries.list(tomorrow, { product, limit: 10 })).length;
        assert.equal(await delivered(paper.id), 1, "the print product's, not the one naming online");
        assert.equal(await delivered(site.id), 1, 'the one naming print-online, not the online product’s');
      });

      it('stores nothing of a batch with a taken email, and says which error', async () => {
        const taken = uniqueEmail();
        await store.users.create(newUser({ email: taken }), AUDIT);
        const fresh = uniqueEmail();
        await assert.rejects(
          store.users.import(
            [
              { user: newUser({ email: fresh }), subscriptions: [subscriptionValues()] },
              { user: newUser({ email: taken.toUpperCase() }), subscriptions: [] },
            ],
            null,
          ),
          (error: DomainFailure) => error.code === 'EMAIL_TAKEN',
        );
        assert.deepEqual((await store.users.list({ email: { address: fresh }, offset: 0, limit: 10 })).users, []);
      });

      it('records each user in the audit trail when asked to', async () => {
        const [id] = await store.users.import([{ user: newUser(), subscriptions: [] }], {
          actor: 'import',
          attributes: ['email', 'familyName'],
        });
        const events = await store.audit.list({ resourceType: 'users', resourceId: id, limit: 10 });
        assert.deepEqual(
          events.map((e) => [e.actor, e.action, e.attributes]),
          [['import', 'create', ['email', 'familyName']]],
        );
      });

      it("records each user with the attributes it set, then each subscription's creation with the ones it holds", async () => {
        const bare = { dateEnded: null, externalIdentifier: null, license: null, resource: null, productId: null };
        const ids = await store.users.import(
          [
            {
              user: newUser(),
              subscriptions: [
                subscriptionValues({ ...bare, externalIdentifier: 'x-1' }),
                subscriptionValues({ ...bare, trial: true }),
              ],
              attributes: ['email', 'familyName', 'givenName'],
            },
            { user: newUser(), subscriptions: [], attributes: [] },
          ],
          { actor: 'import', attributes: [] },
        );
        const trail = await Promise.all(ids.map((userId) => store.audit.list({ userId, limit: 10 })));
        assert.deepEqual(
          trail.map((events) => events.map((e) => [e.eventType, e.attributes])),
          [
            [
              ['user.created', ['email', 'familyName', 'givenName']],
              ['subscription.created', ['dateStarted', 'externalIdentifier', 'trial']],
              ['subscription.created', ['dateStarted', 'trial']],
            ],
            [['user.created', []]],
          ],
        );
        const subscriptions = await store.subscriptions.list(ids[0] as string, { limit: 10 });
        assert.deepEqual(
          trail[0]
            ?.slice(1)
            .map((e) => e.resourceId)
            .sort(),
          subscriptions?.map((s) => s.id).sort(),
        );
      });
    });

    describe('users.byEmail', () => {
      it('finds users whatever the letter case, by lower-cased email, with the password hash they have', async () => {
        const email = uniqueEmail();
        const passwordHash = '$argon2id$v=19$m=19456,t=2,p=1$a$b';
        const user = await store.users.create(newUser({ email, passwordHash }), AUDIT);
        const found = await store.users.byEmail([email.toUpperCase(), uniqueEmail()]);
        assert.deepEqual([...found.entries()], [[email.toLowerCase(), { user, passwordHash, consents: new Map() }]]);
      });

      it('with their consents of every state, by newsletter', async () => {
        const email = uniqueEmail();
        const user = await store.users.create(newUser({ email, newsletters: ['kept', 'left'] }), AUDIT);
        await store.users.update(user.id, userChanges({ removeNewsletters: ['left'] }), AUDIT);
        const found = await store.users.byEmail([email]);
        assert.deepEqual(
          found.get(email.toLowerCase())?.consents,
          new Map([
            ['kept', 'subscribed'],
            ['left', 'unsubscribed'],
          ]),
        );
      });
    });

    describe('versions and preconditions', () => {
      const refused = (error: DomainFailure) => error.code === 'PRECONDITION_FAILED';

      it('starts a user at version 1 and counts every change, newsletters included', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        assert.equal(user.version, 1);
        await store.users.update(user.id, userChanges({ addNewsletters: ['n'] }), AUDIT);
        assert.equal((await store.users.get(user.id))?.version, 2);
      });

      it('changes a user only at a version the precondition names, and refuses with 412 otherwise', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        const change = userChanges({ fields: toUserFields({ givenName: 'Changed' }) });
        await assert.rejects(store.users.update(user.id, change, AUDIT, [7]), refused);
        assert.deepEqual(await store.users.get(user.id), user);
        assert.equal(await store.users.update(user.id, change, AUDIT, [user.version]), true);
        await assert.rejects(store.users.delete(user.id, AUDIT, [user.version]), refused);
        assert.equal(await store.users.delete(user.id, AUDIT, [user.version + 1]), true);
      });

      it('answers not found rather than 412 for a user or subscription that does not exist', async () => {
        assert.equal(await store.users.update(UNKNOWN_ID, userChanges(), AUDIT, [1]), false);
        assert.equal(await store.users.delete(UNKNOWN_ID, AUDIT, [1]), false);
        const user = await store.users.create(newUser(), AUDIT);
        assert.equal(await store.subscriptions.delete(user.id, UNKNOWN_ID, AUDIT, [1]), false);
        assert.equal(await store.subscriptions.expire(user.id, UNKNOWN_ID, 0, AUDIT, [1]), undefined);
      });

      it('changes, expires and deletes a subscription only at a version the precondition names', async () => {
        const { user, subscription } = await userWithSubscription();
        const same = (current: SubscriptionValues) => current;
        await assert.rejects(store.subscriptions.update(user.id, subscription.id, same, AUDIT, [9]), refused);
        const updated = await store.subscriptions.update(user.id, subscription.id, same, AUDIT, [1]);
        assert.equal(updated?.version, 2);
        await assert.rejects(
          store.subscriptions.expire(user.id, subscription.id, subscription.dateStarted, AUDIT, [1]),
          refused,
        );
        const expired = await store.subscriptions.expire(
          user.id,
          subscription.id,
          subscription.dateStarted,
          AUDIT,
          [2],
        );
        assert.equal(expired?.version, 3);
        // Already expired: still refused when the precondition is stale.
        await assert.rejects(
          store.subscriptions.expire(user.id, subscription.id, subscription.dateStarted, AUDIT, [2]),
          refused,
        );
        await assert.rejects(store.subscriptions.delete(user.id, subscription.id, AUDIT, [2]), refused);
        assert.equal(await store.subscriptions.delete(user.id, subscription.id, AUDIT, [3]), true);
      });
    });

    describe('idempotency keys', () => {
      const LIMITS = { staleAfter: 60, keepFor: 3600 };
      const response = { status: 201, headers: { etag: '"1"' }, body: '{"data":{}}' };

      it('claims a new key once, replays what was kept, and refuses another request under it', async () => {
        const key = unique();
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1000, LIMITS), { state: 'new' });
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1001, LIMITS), { state: 'in-progress' });
        await store.idempotency.finishKey('s', key, response, null);
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1002, LIMITS), { state: 'replay', response });
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f2', 1003, LIMITS), { state: 'mismatch' });
      });

      it('hands a claim unanswered past staleAfter to the next request with it', async () => {
        const key = unique();
        await store.idempotency.claimKey('s', key, 'f1', 1000, LIMITS);
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1061, LIMITS), { state: 'new' });
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1062, LIMITS), { state: 'in-progress' });
      });

      it('treats a key past keepFor as unused, whatever request it was, without any other traffic', async () => {
        const key = unique();
        await store.idempotency.claimKey('s', key, 'f1', 1000, LIMITS);
        await store.idempotency.finishKey('s', key, response, null);
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f2', 1000 + 3601, LIMITS), { state: 'new' });
        await store.idempotency.finishKey('s', key, { ...response, status: 422 }, null);
        const replay = await store.idempotency.claimKey('s', key, 'f2', 1000 + 3602, LIMITS);
        assert.equal(replay.state === 'replay' && replay.response.status, 422);
      });

      it('keeps a response that names a reader until the reader is erased', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        const key = unique();
        await store.idempotency.claimKey('s', key, 'f1', 1000, LIMITS);
        await store.idempotency.finishKey('s', key, response, user.id);
        assert.equal((await store.idempotency.claimKey('s', key, 'f1', 1001, LIMITS)).state, 'replay');
        await store.users.delete(user.id, AUDIT);
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1002, LIMITS), { state: 'new' });
      });

      it('releases the claim, keeping nothing, when the reader a response names is already gone', async () => {
        const user = await store.users.create(newUser(), AUDIT);
        await store.users.delete(user.id, AUDIT);
        const key = unique();
        await store.idempotency.claimKey('s', key, 'f1', 1000, LIMITS);
        await store.idempotency.finishKey('s', key, response, user.id);
        assert.deepEqual(await store.idempotency.claimKey('s', key, 'f1', 1001, LIMITS), { state: 'new' });
      });
    });

    describe('webhook deliveries', () => {
      /** A webhook for `events`, removed (with its deliveries) when `body` ends. */
      async function withWebhook(events: EventType[], body: (webhookId: string) => Promise<void>) {
        const webhook = await store.webhooks.create({ url: 'http://127.0.0.1:9/', events, secretSalt: 'salt' }, AUDIT);
        try {
          await body(webhook.id);
        } finally {
          await store.webhooks.delete(webhook.id, AUDIT);
        }
      }
      const LEASE = 60_000;
      const claimOf = async (webhookId: string, now: number) =>
        (await store.webhooks.claimDeliveries(now, LEASE, 100)).filter((c) => c.delivery.webhookId === webhookId);

      it('writes a delivery for each event of a subscribed type, with the event', async () => {
        await withWebhook(['subscription.created'], async (webhookId) => {
          const { user, subscription } = await userWithSubscription();
          const deliveries = await store.webhooks.listDeliveries(webhookId, { limit: 10 });
          assert.deepEqual(
            deliveries?.map((d) => [d.eventType, d.userId, d.state, d.attempts]),
            [['subscription.created', user.id, 'pending', 0]],
          );
          const [claimed] = await claimOf(webhookId, Date.now());
          assert.deepEqual(
            [claimed?.event.resourceId, claimed?.event.userId, claimed?.url, claimed?.secretSalt],
            [subscription.id, user.id, 'http://127.0.0.1:9/', 'salt'],
          );
          assert.equal(claimed?.delivery.attempts, 1);
        });
      });

      it("hands out only the oldest pending delivery of each user, and a user's next once it is done", async () => {
        await withWebhook(['user.created', 'user.updated'], async (webhookId) => {
          const first = await store.users.create(newUser(), AUDIT);
          await store.users.update(first.id, userChanges({ fields: toUserFields({ givenName: 'Next' }) }), AUDIT);
          const second = await store.users.create(newUser(), AUDIT);
          const now = Date.now();
          const claimed = await claimOf(webhookId, now);
          assert.deepEqual(
            claimed.map((c) => [c.delivery.userId, c.delivery.eventType]),
            [
              [first.id, 'user.created'],
              [second.id, 'user.created'],
            ],
          );
          await store.webhooks.finishDelivery(claimed[0]!.delivery.id, claimed[0]!.delivery.version, {
            state: 'delivered',
            at: now,
            nextAttemptAt: null,
            status: 204,
            error: null,
          });
          const next = await claimOf(webhookId, now);
          assert.deepEqual(
            next.map((c) => [c.delivery.userId, c.delivery.eventType]),
            [[first.id, 'user.updated']],
          );
        });
      });

      it('hands a delivery to no one else while its lease runs, and again once it has run out', async () => {
        await withWebhook(['user.created'], async (webhookId) => {
          await store.users.create(newUser(), AUDIT);
          const now = Date.now();
          const concurrent = await Promise.all(Array.from({ length: 5 }, () => claimOf(webhookId, now)));
          assert.equal(concurrent.flat().length, 1, 'one delivery was handed out twice');
          assert.deepEqual(await claimOf(webhookId, now + LEASE - 1), []);
          const again = await claimOf(webhookId, now + LEASE);
          assert.equal(again.length, 1);
          assert.equal(again[0]?.delivery.attempts, 2);
        });
      });

      it("keeps a delivery waiting for its retry back until then, with the reason, and its user's later ones too", async () => {
        await withWebhook(['user.created', 'user.updated'], async (webhookId) => {
          const user = await store.users.create(newUser(), AUDIT);
          const now = Date.now();
          const [claimed] = await claimOf(webhookId, now);
          const retryAt = now + 5000;
          const recorded = await store.webhooks.finishDelivery(claimed!.delivery.id, claimed!.delivery.version, {
            state: 'pending',
            at: now,
            nextAttemptAt: retryAt,
            status: 503,
            error: 'the endpoint answered 503',
          });
          assert.equal(recorded, true);
          await store.users.update(user.id, userChanges({ fields: toUserFields({ givenName: 'Later' }) }), AUDIT);
          const queued = (await store.webhooks.listDeliveries(webhookId, { limit: 10 }))?.at(-1);
          assert.equal(queued?.eventType, 'user.updated');
          assert.equal(queued?.nextAttemptAt, retryAt, 'a later delivery of the user is due before the retry');
          assert.deepEqual(await claimOf(webhookId, now + 4999), []);
          const retried = await claimOf(webhookId, retryAt);
          assert.deepEqual(
            retried.map((c) => [
              c.delivery.eventType,
              c.delivery.lastStatus,
              c.delivery.lastError,
              c.delivery.attempts,
            ]),
            [['user.created', 503, 'the endpoint answered 503', 2]],
          );
        });
      });

      it('records nothing for an attempt whose claim has passed to another dispatcher', async () => {
        await withWebhook(['user.created'], async (webhookId) => {
          await store.users.create(newUser(), AUDIT);
          const now = Date.now();
          const [late] = await claimOf(webhookId, now);
          const [current] = await claimOf(webhookId, now + LEASE);
          const delivered = { state: 'delivered', at: now, nextAttemptAt: null, status: 204, error: null } as const;
          assert.equal(
            await store.webhooks.finishDelivery(late!.delivery.id, late!.delivery.version, delivered),
            false,
          );
          const [stillLeased] = (await store.webhooks.listDeliveries(webhookId, { limit: 1 })) ?? [];
          assert.equal(stillLeased?.state, 'pending');
          assert.deepEqual(await claimOf(webhookId, now + LEASE + 1), [], 'the live lease was cleared');
          assert.equal(
            await store.webhooks.finishDelivery(current!.delivery.id, current!.delivery.version, delivered),
            true,
          );
        });
      });

      it('makes a failed delivery pending again on redeliver, and answers undefined for an unknown one', async () => {
        await withWebhook(['user.created'], async (webhookId) => {
          await store.users.create(newUser(), AUDIT);
          const now = Date.now();
          const [claimed] = await claimOf(webhookId, now);
          const failed = { state: 'failed', at: now, nextAttemptAt: null, status: 500, error: 'no' } as const;
          await store.webhooks.finishDelivery(claimed!.delivery.id, claimed!.delivery.version, failed);
          assert.deepEqual(await claimOf(webhookId, now + LEASE), []);
          const again = await store.webhooks.redeliver(webhookId, claimed!.delivery.id, now + 1);
          assert.deepEqual([again?.state, again?.attempts, again?.nextAttemptAt], ['pending', 0, now + 1]);
          assert.equal((await claimOf(webhookId, now + 1)).length, 1);
          assert.equal(await store.webhooks.redeliver(webhookId, UNKNOWN_ID, now), undefined);
        });
      });

      it('answers undefined for the deliveries of a webhook that does not exist', async () => {
        assert.equal(await store.webhooks.listDeliveries(UNKNOWN_ID, { limit: 10 }), undefined);
      });
    });

    describe('sign-ins', () => {
      const LIMITS = { maxAttempts: 3, windowSeconds: 900 };
      const T = 2_000_000_000;
      const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaA';
      const attemptsOf = async (email: string, now: number, count: number, limits = LIMITS) => {
        const decisions = [];
        for (let i = 0; i < count; i += 1) decisions.push(await store.signIns.countAttempt(email, now, limits));
        return decisions;
      };

      it('finds the account of an email in any letter case, with its password hash', async () => {
        const user = await store.users.create(newUser({ passwordHash: HASH }), AUDIT);
        assert.deepEqual(await store.signIns.findAccount(user.email.toUpperCase()), {
          id: user.id,
          passwordHash: HASH,
        });
        const without = await store.users.create(newUser(), AUDIT);
        assert.deepEqual(await store.signIns.findAccount(without.email), { id: without.id, passwordHash: null });
        assert.equal(await store.signIns.findAccount(uniqueEmail()), undefined);
      });

      it('allows the attempts of a window up to the limit, then refuses until the window has passed', async () => {
        const email = uniqueEmail();
        const decisions = await attemptsOf(email, T, 3);
        assert.ok(decisions.every((d) => d.allowed));
        assert.deepEqual(await store.signIns.countAttempt(email, T + 100, LIMITS), {
          allowed: false,
          retryAfterSeconds: 800,
        });
        assert.deepEqual(await store.signIns.countAttempt(email, T + 899, LIMITS), {
          allowed: false,
          retryAfterSeconds: 1,
        });
        assert.deepEqual(await store.signIns.countAttempt(email, T + 900, LIMITS), { allowed: true });
      });

      it('counts the attempts of an email whatever its letter case, and of each email apart', async () => {
        const email = uniqueEmail();
        await attemptsOf(email, T, 2);
        assert.deepEqual(await store.signIns.countAttempt(email.toUpperCase(), T, LIMITS), { allowed: true });
        assert.equal((await store.signIns.countAttempt(email, T, LIMITS)).allowed, false);
        assert.deepEqual(await store.signIns.countAttempt(uniqueEmail(), T, LIMITS), { allowed: true });
      });

      it('counts every one of many attempts made at once, and allows no more than the limit', async () => {
        const email = uniqueEmail();
        const limits = { maxAttempts: 10, windowSeconds: 900 };
        const decisions = await Promise.all(
          Array.from({ length: 20 }, () => store.signIns.countAttempt(email, T, limits)),
        );
        assert.equal(decisions.filter((d) => d.allowed).length, 10);
      });

      it('records a sign-in: the last sign-in time, a new version, the event, the email forgotten', async () => {
        const user = await store.users.create(newUser({ passwordHash: HASH }), AUDIT);
        await attemptsOf(user.email, T, 3);
        const id = await store.signIns.record(
          user.id,
          { email: user.email, at: T + 5 },
          { actor: 'site', attributes: [] },
        );
        assert.match(id ?? '', /^[1-9][0-9]*$/);
        const read = await store.users.get(user.id);
        assert.deepEqual([read?.lastSignInAt, read?.version], [T + 5, user.version + 1]);
        const [event] = await store.audit.list({ eventTypes: ['user.signed_in'], userId: user.id, limit: 10 });
        assert.deepEqual(
          [event?.id, event?.actor, event?.action, event?.resourceType, event?.resourceId, event?.attributes],
          [id, 'site', 'sign-in', 'users', user.id, []],
        );
        assert.deepEqual(await store.signIns.countAttempt(user.email, T + 6, LIMITS), { allowed: true });
      });

      it('replaces the password hash on a sign-in only while it is still the one verified', async () => {
        const user = await store.users.create(newUser({ passwordHash: HASH }), AUDIT);
        await store.signIns.record(
          user.id,
          { email: user.email, at: T, rehash: { from: 'another', to: 'new-1' } },
          AUDIT,
        );
        assert.equal((await store.signIns.findAccount(user.email))?.passwordHash, HASH);
        await store.signIns.record(user.id, { email: user.email, at: T, rehash: { from: HASH, to: 'new-2' } }, AUDIT);
        assert.equal((await store.signIns.findAccount(user.email))?.passwordHash, 'new-2');
      });

      it('records no sign-in of a user that does not exist', async () => {
        assert.equal(await store.signIns.record(UNKNOWN_ID, { email: uniqueEmail(), at: T }, AUDIT), undefined);
        assert.deepEqual(await store.audit.list({ userId: UNKNOWN_ID, limit: 10 }), []);
      });

      it('forgets the attempts of windows that began at or before a time, and no others', async () => {
        const [old, recent] = [uniqueEmail(), uniqueEmail()];
        const early = 1_000_000;
        await attemptsOf(old, early, 3);
        await attemptsOf(recent, early + 10, 3);
        assert.ok((await store.signIns.forgetAttempts(early)) >= 1);
        assert.deepEqual(await store.signIns.countAttempt(old, early + 20, LIMITS), { allowed: true });
        assert.equal((await store.signIns.countAttempt(recent, early + 20, LIMITS)).allowed, false);
      });

      it("forgets the attempts of an erased user's email with the user, in the same change", async () => {
        const user = await store.users.create(newUser(), AUDIT);
        await attemptsOf(user.email, T, 3);
        assert.equal(await store.users.delete(user.id, AUDIT), true);
        assert.deepEqual(await store.signIns.countAttempt(user.email, T, LIMITS), { allowed: true });
      });
    });

    describe('password reset tokens', () => {
      const T = 2_000_000_000;
      const tokenHash = () => Buffer.from(unique().padEnd(32, '-'));
      async function userWithToken(expiresAt = T + 3600) {
        const user = await store.users.create(newUser(), AUDIT);
        const hash = tokenHash();
        const token = await store.passwordResets.createToken(
          { userId: user.id, tokenHash: hash, createdAt: T, expiresAt },
          { actor: 'crm', attributes: [] },
        );
        assert.ok(token);
        return { user, hash, token };
      }

      it('keeps a token for its user until it expires, and records its issue (not as an event)', async () => {
        const { user, hash, token } = await userWithToken();
        assert.deepEqual([token.userId, token.createdAt, token.expiresAt], [user.id, T, T + 3600]);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T + 3599), true);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T + 3600), false);
        assert.equal(await store.passwordResets.hasToken(user.id, tokenHash(), T), false);
        const [issued] = await store.audit.list({
          resourceType: 'password-reset-tokens',
          userId: user.id,
          limit: 5,
        });
        assert.deepEqual([issued?.actor, issued?.resourceId, issued?.eventType], ['crm', token.id, null]);
      });

      it('voids one token of its user, recording it, and no other token', async () => {
        const { user, hash, token } = await userWithToken();
        const kept = await userWithToken();
        const other = await store.users.create(newUser(), AUDIT);
        assert.equal(await store.passwordResets.voidToken(other.id, token.id, AUDIT), false);
        assert.equal(await store.passwordResets.voidToken(user.id, token.id, { actor: 'crm', attributes: [] }), true);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), false);
        assert.equal(await store.passwordResets.hasToken(kept.user.id, kept.hash, T), true);
        assert.equal(await store.passwordResets.voidToken(user.id, token.id, AUDIT), false);
        const trail = await store.audit.list({ resourceType: 'password-reset-tokens', userId: user.id, limit: 5 });
        assert.deepEqual(
          trail.map((e) => [e.action, e.resourceId, e.actor, e.eventType]),
          [
            ['create', token.id, 'crm', null],
            ['delete', token.id, 'crm', null],
          ],
        );
      });

      it("finds no token under another user's id", async () => {
        const { hash } = await userWithToken();
        const other = await store.users.create(newUser(), AUDIT);
        assert.equal(await store.passwordResets.hasToken(other.id, hash, T), false);
      });

      it('issues no token for a user that does not exist', async () => {
        const token = { userId: UNKNOWN_ID, tokenHash: tokenHash(), createdAt: T, expiresAt: T + 1 };
        assert.equal(await store.passwordResets.createToken(token, AUDIT), undefined);
      });

      it('uses a token once: the new hash, every token void, the attempts forgotten, a user change recorded', async () => {
        const { user, hash } = await userWithToken();
        const other = tokenHash();
        await store.passwordResets.createToken(
          { userId: user.id, tokenHash: other, createdAt: T, expiresAt: T + 60 },
          AUDIT,
        );
        await store.signIns.countAttempt(user.email, T, { maxAttempts: 1, windowSeconds: 900 });
        const audit = { actor: 'site', attributes: ['password'] };
        assert.equal(await store.passwordResets.resetPassword(user.id, hash, 'new-hash', T + 1, audit), true);
        assert.equal((await store.signIns.findAccount(user.email))?.passwordHash, 'new-hash');
        assert.equal((await store.users.get(user.id))?.version, user.version + 1);
        assert.equal(await store.passwordResets.hasToken(user.id, other, T + 1), false);
        assert.equal(await store.passwordResets.resetPassword(user.id, hash, 'again', T + 2, audit), false);
        assert.deepEqual(await store.signIns.countAttempt(user.email, T + 2, { maxAttempts: 1, windowSeconds: 900 }), {
          allowed: true,
        });
        const events = await store.audit.list({ eventTypes: ['user.updated'], userId: user.id, limit: 5 });
        assert.deepEqual(
          events.map((e) => [e.actor, e.attributes]),
          [['site', ['password']]],
        );
      });

      it('uses an expired token not at all', async () => {
        const { user, hash } = await userWithToken(T + 10);
        assert.equal(await store.passwordResets.resetPassword(user.id, hash, 'new-hash', T + 10, AUDIT), false);
        assert.equal((await store.signIns.findAccount(user.email))?.passwordHash, null);
      });

      it('lets only one of two uses of the same token at once succeed', async () => {
        const { user, hash } = await userWithToken();
        const results = await Promise.all([
          store.passwordResets.resetPassword(user.id, hash, 'first', T, AUDIT),
          store.passwordResets.resetPassword(user.id, hash, 'second', T, AUDIT),
        ]);
        assert.deepEqual(results.sort(), [false, true]);
      });

      it('voids every token of a user whose password hash changes, and only then', async () => {
        const { user, hash } = await userWithToken();
        await store.users.update(user.id, userChanges({ fields: toUserFields({ givenName: 'Still' }) }), AUDIT);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), true);
        await store.users.update(user.id, userChanges({ passwordHash: 'changed' }), AUDIT);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), false);
      });

      it('voids every token of a user whose email changes, but not for a change of letter case alone', async () => {
        const { user, hash } = await userWithToken();
        await store.users.update(user.id, userChanges({ email: user.email.toUpperCase() }), AUDIT);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), true);
        await store.users.update(user.id, userChanges({ email: `moved-${user.email}` }), AUDIT);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), false);
      });

      it('voids the tokens of a new email and a new password changed at once', async () => {
        const { user, hash } = await userWithToken();
        const changes = userChanges({ email: `moved-${user.email}`, passwordHash: 'changed' });
        assert.equal(await store.users.update(user.id, changes, AUDIT), true);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), false);
      });

      it('erases the tokens of an erased user with them', async () => {
        const { user, hash } = await userWithToken();
        await store.users.delete(user.id, AUDIT);
        assert.equal(await store.passwordResets.hasToken(user.id, hash, T), false);
      });

      it('forgets the tokens expired at a time, and no others', async () => {
        const early = 1_000_000;
        const expired = await userWithToken(early);
        const live = await userWithToken(early + 100);
        assert.ok((await store.passwordResets.forgetExpiredTokens(early)) >= 1);
        assert.equal(await store.passwordResets.hasToken(expired.user.id, expired.hash, 0), false);
        assert.equal(await store.passwordResets.hasToken(live.user.id, live.hash, 0), true);
      });
    });

    describe('updateStaff with a new password', () => {
      const NOW = 1_900_000_000;
      const LIVE = { seenAfter: NOW - 60, begunAfter: NOW - 3600 };

      async function staffWithSessions(...sessions: string[]) {
        const member = await store.staff.create(
          { email: uniqueEmail(), name: 'Staff', role: 'agent', passwordHash: 'old hash', createdAt: NOW },
          AUDIT,
        );
        for (const session of sessions) {
          await store.staff.createSession(
            { idHash: Buffer.from(session), staffId: member.id, now: NOW, attemptsKey: 'staff:none' },
            AUDIT,
          );
        }
        return member;
      }
      const live = async (session: string) =>
        (await store.staff.resumeSession(Buffer.from(session), NOW, LIVE)) !== undefined;

      it('stores the hash, ends every session but the one kept, and moves the version', async () => {
        const kept = `kept ${unique()}`;
        const other = `other ${unique()}`;
        const member = await staffWithSessions(kept, other);
        const password = { hash: 'new hash', keepSession: Buffer.from(kept), replacing: 'old hash' };
        const updated = await store.staff.update(member.id, { password }, AUDIT);
        assert.equal(updated?.version, member.version + 1);
        assert.deepEqual([await live(kept), await live(other)], [true, false]);
        assert.equal((await store.staff.findSignIn(member.email))?.passwordHash, 'new hash');
      });

      it('ends every session when none is kept', async () => {
        const sessions = [`a ${unique()}`, `b ${unique()}`];
        const member = await staffWithSessions(...sessions);
        await store.staff.update(member.id, { password: { hash: 'new hash' } }, AUDIT);
        assert.deepEqual([await live(sessions[0]!), await live(sessions[1]!)], [false, false]);
      });

      it('writes nothing when the hash it replaces is no longer the stored one', async () => {
        const session = `s ${unique()}`;
        const member = await staffWithSessions(session);
        const password = { hash: 'new hash', keepSession: Buffer.from(session), replacing: 'another hash' };
        await assert.rejects(
          store.staff.update(member.id, { name: 'Renamed', password }, AUDIT),
          (error: unknown) =>
            error instanceof DomainFailure && error.problems[0]?.pointer === '/data/attributes/currentPassword',
        );
        assert.equal((await store.staff.findSignIn(member.email))?.passwordHash, 'old hash');
        assert.equal((await store.staff.get(member.id))?.name, 'Staff');
        assert.equal(await live(session), true);
        assert.equal(await store.staff.update(UNKNOWN_ID, { password }, AUDIT), undefined);
      });
    });
  });
}
