/**
 * A reader's page in the console: the profile, address, newsletters and subscriptions (with
 * status and product) as the API has them, and the profile edited from it: the change visible
 * through the API, the API's 422 messages beside their fields, and a 412 when someone else
 * changed the reader first, which shows their values; and the reader's history, newest first,
 * naming who made each change.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createSubscription, createUser, subscribeToProduct } from '../support/fixtures.js';
import {
  missingChromium,
  screenshot,
  signInThroughConsole,
  startConsole,
  type ConsoleRig,
} from '../support/console.js';
import { createStaff, type TestStaff } from '../support/staff.js';
import type { Client } from '../support/service.js';
import { forEachStore } from '../support/stores.js';

const DAY = 86_400_000;
const instant = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 19) + 'Z';

/** A reader with every attribute the API keeps set, so that a save that loses one is seen. */
const EVERY_ATTRIBUTE = (newsletter: string) => ({
  email: `katherine.${Math.random().toString(36).slice(2)}@example.com`,
  honorificPrefix: 'Dr',
  givenName: 'Katherine',
  additionalName: 'Anne',
  familyName: 'Johnson',
  honorificSuffix: 'PhD',
  address: {
    streetAddress: '1 Main Street',
    unitNumber: 'Apt 4',
    addressLocality: 'Arlington',
    addressRegion: 'VA',
    addressCountry: 'US',
    postalCode: '22201',
  },
  circulationNumber: `C-${Math.random().toString(36).slice(2)}`,
  internalNotes: 'Prefers calls after 5pm.',
  jobTitle: 'Mathematician',
  worksFor: { legalName: 'NASA', telephone: '+1 757 555 0100' },
  telephone: '+1 703 555 0100',
  cellNumber: '+1 703 555 0101',
  faxNumber: '+1 703 555 0102',
  demographics: { recommendations: ['science'] },
  newsletters: { add: [newsletter] },
});

/** The text of a description list's entry in `region`, by its term. */
async function cellOf(region: Locator, term: string): Promise<string> {
  const entry = region.locator('dl > div').filter({ has: region.page().locator('dt', { hasText: term }) });
  return (await entry.locator('dd').innerText()).replace(/\s+/g, ' ').trim();
}

forEachStore((kind) => {
  describe("a reader's page", { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    let staff: TestStaff;
    let page: Page;
    const product = `paper-${kind.toLowerCase()}`;
    const newsletter = `morning-${kind.toLowerCase()}`;
    before(async () => {
      rig = await startConsole(kind);
      const admin = rig.service.client;
      const made = await admin.post('/products', {
        data: { type: 'products', id: product, attributes: { name: 'The Paper', resource: 'print' } },
      });
      assert.equal(made.status, 201, made.text);
      const letter = await admin.post('/newsletters', {
        data: { type: 'newsletters', id: newsletter, attributes: { name: 'Morning Briefing' } },
      });
      assert.equal(letter.status, 201, letter.text);
      staff = await createStaff(admin, 'agent', 'Hana Historian');
      page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, staff);
    });
    after(() => rig?.close());

    const open = async (id: string) => {
      await page.goto(`${rig.service.baseUrl}/console#/readers/${id}`);
      await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
    };

    it('shows the profile, address, newsletters, and each subscription with its status and product', async () => {
      const admin = rig.service.client;
      const id = await createUser(admin, {
        givenName: 'Paula',
        familyName: 'Page',
        address: { streetAddress: '1 Long Road', postalCode: '75001', addressLocality: 'Paris', addressCountry: 'FR' },
        newsletters: { add: [newsletter] },
      });
      const subscribe = (attributes: Record<string, unknown>) => subscribeToProduct(admin, id, product, attributes);
      await subscribe({ dateStarted: instant(-10), dateEnded: null });
      await subscribe({ dateStarted: instant(10), dateEnded: instant(40) });
      await subscribe({ dateStarted: instant(-40), dateEnded: instant(-10) });
      const expired = await createSubscription(admin, id, { dateStarted: instant(-5), dateEnded: instant(30) });
      assert.equal((await admin.put(`/users/${id}/subscriptions/${expired}/expire`)).status, 200);
      await open(id);
      assert.equal(await page.getByLabel('Given name').inputValue(), 'Paula');
      assert.equal(await page.getByLabel('Postal code').inputValue(), '75001');
      assert.equal(await page.getByLabel('Town or city').inputValue(), 'Paris');
      await page.getByRole('region', { name: 'Newsletters' }).getByText('Morning Briefing').waitFor();
      const subscriptions = page.getByRole('region', { name: 'Subscriptions' }).locator('li.subscription');
      const shown = (await subscriptions.allInnerTexts()).map((text) => text.replace(/\s+/g, ' '));
      for (const status of ['active', 'scheduled', 'ended', 'expired']) {
        assert.ok(
          shown.some((text) => text.startsWith(status)),
          `no ${status} subscription in ${shown.join(' | ')}`,
        );
      }
      assert.equal(shown.filter((text) => text.includes('The Paper')).length, 3);
      await screenshot(page, `reader-${kind}`, kind === 'SQLite' ? 'reader' : undefined);
    });

    it("says in Access what the reader gets now and until when, as the API's access check has it", async () => {
      const admin = rig.service.client;
      const both = `both-${kind.toLowerCase()}`;
      const made = await admin.post('/products', {
        data: { type: 'products', id: both, attributes: { name: 'Paper and Site', resource: 'print-online' } },
      });
      assert.equal(made.status, 201, made.text);
      const id = await createUser(admin, { givenName: 'Grace' });
      await subscribeToProduct(admin, id, both, { dateStarted: instant(-10), dateEnded: instant(30) });
      const access = (await admin.get(`/users/${id}/access`)).body.data.attributes;
      assert.deepEqual([access.online, access.print], [true, true]);
      await open(id);
      const region = page.getByRole('region', { name: 'Access' });
      const until = instant(30).slice(0, 10);
      assert.equal(await cellOf(region, 'Online'), `Yes, until ${until}`);
      assert.equal(await cellOf(region, 'Print edition'), `Yes, until ${until}`);
      const item = page.getByRole('region', { name: 'Subscriptions' }).locator('li.subscription');
      assert.match(await item.innerText(), /Paper and Site[\s\S]*gives print and online/);
    });

    it("waits for the catalogue before it shows a reader's subscriptions, never by a product's id as giving nothing", async () => {
      const admin = rig.service.client;
      const id = await createUser(admin, { givenName: 'Lena' });
      await subscribeToProduct(admin, id, product, { dateStarted: instant(-1), dateEnded: instant(30) });
      // The catalogue answers after the reader, as on a busy service.
      let answerCatalogue = () => {};
      const held = new Promise<void>((resolve) => (answerCatalogue = resolve));
      const catalogue = (url: URL) => url.pathname === '/products';
      let answered = Promise.resolve();
      await page.route(
        catalogue,
        (route) => {
          answered = held.then(() => route.continue());
          return answered;
        },
        { times: 1 },
      );
      try {
        const reader = ['', '/subscriptions', '/access'].map((part) =>
          page.waitForResponse((response) => new URL(response.url()).pathname === `/users/${id}${part}`),
        );
        await page.goto(`${rig.service.baseUrl}/console#/readers/${id}`);
        await Promise.all(reader);
        // A frame for the page to draw what it has.
        await page.evaluate('new Promise((painted) => requestAnimationFrame(painted))');
        assert.equal(await page.getByRole('heading', { name: 'Subscriptions' }).count(), 0);
        await page.getByRole('status').filter({ hasText: 'Loading…' }).waitFor();
        answerCatalogue();
        await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
        const item = page.getByRole('region', { name: 'Subscriptions' }).locator('li.subscription');
        assert.match(await item.innerText(), /The Paper[\s\S]*gives print/);
      } finally {
        answerCatalogue();
        // Removed only once its request has gone on: a route removed first is answered twice.
        await answered;
        await page.unroute(catalogue);
      }
    });

    it('says in Access why the reader gets nothing: which subscription ended, was expired, or has not begun', async () => {
      const admin = rig.service.client;
      const id = await createUser(admin, { givenName: 'Nadia' });
      await createSubscription(admin, id, { resource: 'online', dateStarted: instant(-40), dateEnded: instant(-10) });
      const expired = await createSubscription(admin, id, {
        resource: 'online',
        dateStarted: instant(-5),
        dateEnded: instant(30),
      });
      assert.equal((await admin.put(`/users/${id}/subscriptions/${expired}/expire`)).status, 200);
      const expiredOn = (await admin.get(`/users/${id}/subscriptions/${expired}`)).body.data.attributes.dateEnded;
      await createSubscription(admin, id, { resource: 'print', dateStarted: instant(10), dateEnded: null });
      await open(id);
      const region = page.getByRole('region', { name: 'Access' });
      const online = await cellOf(region, 'Online');
      assert.match(online, /^No: /);
      assert.ok(online.includes(`Online subscription ended on ${instant(-10).slice(0, 10)}`), online);
      assert.ok(online.includes(`Online subscription was expired (ended early) on ${expiredOn.slice(0, 10)}`), online);
      assert.equal(
        await cellOf(region, 'Print edition'),
        `No: Print subscription starts on ${instant(10).slice(0, 10)}.`,
      );
      const shown = await page
        .getByRole('region', { name: 'Subscriptions' })
        .locator('li.subscription')
        .allInnerTexts();
      assert.ok(
        shown.every((text) => !text.includes('—')),
        shown.join(' | '),
      );
    });

    it('gives ended and expired subscriptions badges of their own', async () => {
      const admin = rig.service.client;
      const id = await createUser(admin);
      await createSubscription(admin, id, { dateStarted: instant(-40), dateEnded: instant(-10) });
      const expired = await createSubscription(admin, id, { dateStarted: instant(-5), dateEnded: instant(30) });
      assert.equal((await admin.put(`/users/${id}/subscriptions/${expired}/expire`)).status, 200);
      await open(id);
      const badges = page.getByRole('region', { name: 'Subscriptions' }).locator('.status');
      const texts = (await badges.allInnerTexts()).sort();
      assert.deepEqual(texts, ['ended', 'expired early']);
      const backgrounds = await Promise.all(
        [0, 1].map((i) => badges.nth(i).evaluate((b) => (globalThis as any).getComputedStyle(b).backgroundColor)),
      );
      assert.notEqual(backgrounds[0], backgrounds[1], JSON.stringify(backgrounds));
    });

    it('puts Access and Subscriptions above the profile on a phone', async () => {
      const phone = await rig.newPage({ width: 390, height: 844 });
      await signInThroughConsole(phone, rig.service.baseUrl, staff);
      const id = await createUser(rig.service.client, { givenName: 'Mobile' });
      await phone.goto(`${rig.service.baseUrl}/console#/readers/${id}`);
      const top = async (name: string) =>
        (await phone.getByRole('heading', { name, exact: true }).boundingBox())?.y ?? Infinity;
      await phone.getByRole('heading', { name: 'Subscriptions' }).waitFor();
      const [access, subscriptions, profile] = [
        await top('Access'),
        await top('Subscriptions'),
        await top('Profile and address'),
      ];
      assert.ok(access < subscriptions && subscriptions < profile, `${access} ${subscriptions} ${profile}`);
      assert.ok(access < 844, 'Access is not on the first screen');
      await screenshot(phone, `reader-phone-${kind}`);
    });

    it('saves an edited profile, and the API has the change', async () => {
      const id = await createUser(rig.service.client, { givenName: 'Before' });
      await open(id);
      await page.getByLabel('Given name').fill('After');
      await page.getByLabel('Postal code').fill('SW1A 1AA');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Saved.').waitFor();
      const read = await rig.service.client.get(`/users/${id}`);
      assert.equal(read.body.data.attributes.givenName, 'After');
      assert.equal(read.body.data.attributes.address.postalCode, 'SW1A 1AA');
    });

    it('saves only what the agent changed, with If-Match: every attribute the form does not edit stays as it was', async () => {
      const admin = rig.service.client;
      const id = await createUser(admin, EVERY_ATTRIBUTE(newsletter));
      const before = (await admin.get(`/users/${id}`)).body.data.attributes;
      // A new attribute must be given a value here, or this test could not see a save lose it.
      const unset = Object.keys(before).filter((name) => before[name] === null && name !== 'lastSignInAt');
      assert.deepEqual(unset, [], 'EVERY_ATTRIBUTE leaves these attributes unset');
      await open(id);
      await page.getByLabel('Telephone').fill('+1 703 555 0199');
      const sent = page.waitForRequest((r) => r.method() === 'PATCH');
      await page.getByRole('button', { name: 'Save profile' }).click();
      const request = await sent;
      await page.getByText('Saved.').waitFor();
      assert.deepEqual(Object.keys(request.postDataJSON().data.attributes), ['telephone']);
      assert.match((await request.allHeaders())['if-match'] ?? '', /^"/);
      const after = (await admin.get(`/users/${id}`)).body.data.attributes;
      assert.equal(after.telephone, '+1 703 555 0199');
      for (const name of Object.keys(before).filter((name) => name !== 'telephone')) {
        assert.deepEqual(after[name], before[name], `${name} changed`);
      }
    });

    it('keeps the address fields an agent did not touch when one of them changes', async () => {
      const admin = rig.service.client;
      const id = await createUser(admin, { address: EVERY_ATTRIBUTE(newsletter).address });
      await open(id);
      assert.equal(await page.getByLabel('State, province or region').inputValue(), 'VA');
      assert.equal(await page.getByLabel('Flat, suite or unit').inputValue(), 'Apt 4');
      await page.getByLabel('Postal code').fill('22202');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Saved.').waitFor();
      const address = (await admin.get(`/users/${id}`)).body.data.attributes.address;
      assert.deepEqual(address, { ...EVERY_ATTRIBUTE(newsletter).address, postalCode: '22202' });
    });

    it('picks the country by name and saves its code', async () => {
      const id = await createUser(rig.service.client);
      await open(id);
      await page.getByLabel('Country').selectOption({ label: 'United States' });
      await page.getByLabel('State, province or region').fill('VA');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Saved.').waitFor();
      const address = (await rig.service.client.get(`/users/${id}`)).body.data.attributes.address;
      assert.equal(address.addressCountry, 'US');
      assert.equal(address.addressRegion, 'VA');
    });

    it('keeps a country code the list lacks on offer, and saves it unchanged', async () => {
      const admin = rig.service.client;
      const id = await createUser(admin, { address: { addressCountry: 'DEU', addressLocality: 'Berlin' } });
      await open(id);
      assert.equal(await page.getByLabel('Country').inputValue(), 'DEU');
      await page.getByLabel('Town or city').fill('Bonn');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Saved.').waitFor();
      const address = (await admin.get(`/users/${id}`)).body.data.attributes.address;
      assert.equal(address.addressCountry, 'DEU');
      assert.equal(address.addressLocality, 'Bonn');
    });

    it('sends nothing when nothing was changed, and says so', async () => {
      const id = await createUser(rig.service.client, { givenName: 'Unchanged' });
      await open(id);
      let patches = 0;
      const count = (r: { method(): string }) => void (r.method() === 'PATCH' && (patches += 1));
      page.on('request', count);
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Nothing has changed').waitFor();
      page.off('request', count);
      assert.equal(patches, 0);
    });

    it("puts an edit made through the console first in the reader's history, under the staff member's name", async () => {
      const id = await createUser(rig.service.client, { givenName: 'Hester' });
      await open(id);
      const history = page.getByRole('region', { name: 'History' });
      const newest = history.locator('tbody tr').first();
      await newest.filter({ hasText: 'Reader created' }).waitFor();
      await page.getByLabel('Given name').fill('Henrietta');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Saved.').waitFor();
      await newest.filter({ hasText: 'Hana Historian' }).waitFor();
      const cells = (await newest.locator('td').allInnerTexts()).map((text) => text.trim());
      assert.match(cells[1] as string, /^Profile changed \(.*givenName.*\)$/);
      assert.equal(cells[2], 'Hana Historian');
      const events = await rig.service.client.get(`/events?filter[user]=${id}&sort=-id`);
      assert.equal(events.status, 200, events.text);
      const [latest] = events.body.data;
      assert.equal(latest.attributes.eventType, 'user.updated');
      assert.deepEqual(latest.attributes.actor, { type: 'staff', id: staff.id, name: 'Hana Historian' });
      assert.equal(await history.locator('tbody tr').count(), events.body.data.length);
      await screenshot(page, `reader-history-${kind}`);
    });

    it('lists the 20 newest events, and the older ones on asking', async () => {
      const id = await createUser(rig.service.client, { givenName: 'Many' });
      for (let i = 1; i <= 21; i += 1) {
        const changed = await rig.service.client.patch(`/users/${id}`, {
          data: { type: 'users', id, attributes: { jobTitle: `Job ${i}` } },
        });
        assert.equal(changed.status, 200, changed.text);
      }
      await open(id);
      const rows = page.getByRole('region', { name: 'History' }).locator('tbody tr');
      await rows.first().waitFor();
      assert.equal(await rows.count(), 20);
      await page.getByRole('button', { name: 'Older events' }).click();
      await rows.nth(21).waitFor();
      assert.equal(await rows.count(), 22);
      assert.match(await rows.last().innerText(), /Reader created/);
      assert.equal(await page.getByRole('button', { name: 'Older events' }).count(), 0);
    });

    it("shows the API's 422 messages beside the fields they name", async () => {
      const id = await createUser(rig.service.client);
      const answered = await rig.service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { email: 'not an email' } },
      });
      assert.equal(answered.status, 422);
      const message = answered.body.errors.find((e: any) => e.source?.pointer === '/data/attributes/email').detail;
      await open(id);
      await page.getByLabel('Email', { exact: true }).fill('not an email');
      await page.getByRole('button', { name: 'Save profile' }).click();
      const beside = page.locator('#email-error');
      await beside.waitFor();
      assert.equal(await beside.innerText(), message);
      assert.equal(await page.getByLabel('Email', { exact: true }).getAttribute('aria-describedby'), 'email-error');
      await screenshot(page, `reader-422-${kind}`);
    });

    it('sends If-Match: a change made elsewhere first is a 412 that shows the new values', async () => {
      const id = await createUser(rig.service.client, { givenName: 'Original', familyName: 'Kept' });
      await open(id);
      const elsewhere = await rig.service.client.patch(`/users/${id}`, {
        data: { type: 'users', id, attributes: { givenName: 'Changed Elsewhere' } },
      });
      assert.equal(elsewhere.status, 200, elsewhere.text);
      await page.getByLabel('Family name').fill('Overwritten');
      const refused = page.waitForResponse((r) => r.request().method() === 'PATCH');
      await page.getByRole('button', { name: 'Save profile' }).click();
      assert.equal((await refused).status(), 412);
      await page.getByText(/Someone else changed this reader/).waitFor();
      assert.equal(await page.getByLabel('Given name').inputValue(), 'Changed Elsewhere');
      assert.equal(await page.getByLabel('Family name').inputValue(), 'Kept');
      const read = await rig.service.client.get(`/users/${id}`);
      assert.equal(read.body.data.attributes.familyName, 'Kept');
    });

    // Last in the file: the catalogue they fill would be every later test's too.
    it("names a product past the catalogue's first page of 100, and what it gives", async () => {
      const admin = rig.service.client;
      const late = `zz-paper-${kind.toLowerCase()}`;
      await fillCatalogue(admin, 'products', late, { name: 'The Late Edition', resource: 'print' });
      const id = await createUser(admin, { givenName: 'Petra' });
      await subscribeToProduct(admin, id, late, { dateStarted: instant(-1), dateEnded: instant(30) });
      await open(id);
      const item = page.getByRole('region', { name: 'Subscriptions' }).locator('li.subscription');
      assert.match(await item.innerText(), /The Late Edition[\s\S]*gives print/);
    });

    it("names a newsletter past the catalogue's first page of 100", async () => {
      const admin = rig.service.client;
      const late = `zz-letter-${kind.toLowerCase()}`;
      await fillCatalogue(admin, 'newsletters', late, { name: 'The Late Letter' });
      const id = await createUser(admin, { givenName: 'Nils', newsletters: { add: [late] } });
      await open(id);
      await page.getByRole('region', { name: 'Newsletters' }).getByText('The Late Letter').waitFor();
    });
  });
});

/**
 * Makes 100 records of a catalogue ahead of `id` (by id, the catalogue's order), then `id` with
 * these attributes: `id` is then past the first page of 100 the API gives.
 */
async function fillCatalogue(admin: Client, type: 'products' | 'newsletters', id: string, attributes: object) {
  const post = async (recordId: string, recordAttributes: object) => {
    const made = await admin.post(`/${type}`, { data: { type, id: recordId, attributes: recordAttributes } });
    assert.equal(made.status, 201, made.text);
  };
  for (let batch = 0; batch < 100; batch += 20) {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const n = String(batch + i).padStart(3, '0');
        return post(`${id.replace(/^zz-/, 'aa-')}-${n}`, { ...attributes, name: `Filler ${n}` });
      }),
    );
  }
  await post(id, attributes);
  const first = await admin.get(`/${type}?page[size]=100`);
  assert.ok(!first.body.data.some((record: { id: string }) => record.id === id), `${id} is on the first page`);
}
