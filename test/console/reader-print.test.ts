/**
 * A reader's print deliveries from the console, each journey from sign-in to the change visible
 * through the API, on both stores: a print subscription's delivery days; its holds added (with the
 * cut-off said before saving), withdrawn before they start and ended early after, ended and
 * withdrawn ones folded; temporary addresses added with the country picked by name, withdrawn and
 * ended early; delivery complaints listed with their repeat badge and added; the API's refusals
 * shown at the field they name; and forms that take the focus as they open and send on Enter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { AUDIT, createSubscription, createUser } from '../support/fixtures.js';
import {
  createPrintProduct,
  createPrintSubscription,
  createStartedHold,
  dateIn,
  daysAfter,
  today,
} from '../support/print.js';
import { missingChromium, openReaderAsAgent, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

const ADDRESS = {
  streetAddress: '2 Shore Road',
  unitNumber: null,
  addressLocality: 'Brightsea',
  addressRegion: null,
  addressCountry: 'GB',
  postalCode: 'BS1 1AA',
};

/** "Fri 27 Nov" of a YYYY-MM-DD date, as the console names dates beside a cut-off. */
const shortDate = (date: string) =>
  new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' })
    .format(new Date(`${date}T00:00:00Z`))
    .replace(',', '');

/** What the hold form says of the cut-off (the test services': 19:00 the day before, in UTC). */
function holdCutoffText(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone === 'UTC' ? '' : ' (UTC time)';
  if (new Date().getUTCHours() < 19) {
    return `Tomorrow (${shortDate(dateIn(1))}) can still be stopped until 19:00 today${zone}.`;
  }
  return (
    `Tomorrow (${shortDate(dateIn(1))}) is past its cut-off; the first date that can be stopped is ` +
    `${shortDate(dateIn(2))}, until 19:00 tomorrow${zone}.`
  );
}

forEachStore((kind) => {
  describe("a reader's print deliveries, changed from the console", { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    before(async () => {
      rig = await startConsole(kind);
    });
    after(() => rig?.close());

    const openAsAgent = (userId: string) => openReaderAsAgent(rig, userId, 'Print deliveries');

    /** A reader with one print subscription (every day, a year either side of today), on the page. */
    async function printReader(product?: string) {
      const userId = await createUser(rig.service.client, { givenName: 'Pat', familyName: 'Print' });
      const subscriptionId = await createPrintSubscription(rig.service.client, userId, {}, product);
      const path = `/users/${userId}/subscriptions/${subscriptionId}`;
      return { userId, subscriptionId, path };
    }

    /** The region of one print subscription on the page. */
    const printRegion = (page: Page, name = 'Print subscription'): Locator =>
      page.getByRole('region', { name: 'Print deliveries' }).getByRole('region', { name });

    const holdsOf = async (path: string) => (await rig.service.client.get(`${path}/holds`)).body.data as any[];
    const temporaryAddressesOf = async (userId: string) =>
      (await rig.service.client.get(`/users/${userId}/temporary-addresses`)).body.data as any[];

    it('shows each print subscription with its delivery days, and no other', async () => {
      const weekend = await createPrintProduct(rig.service.client, {
        name: 'The Weekender',
        deliveryDays: ['saturday', 'sunday'],
      });
      const { userId } = await printReader(weekend);
      await createPrintSubscription(rig.service.client, userId, { deliveryDays: ['monday', 'tuesday', 'wednesday'] });
      await createSubscription(rig.service.client, userId, { resource: 'online', dateEnded: null });
      const page = await openAsAgent(userId);
      await printRegion(page, 'The Weekender').getByText('Delivered Saturday and Sunday.').waitFor();
      await printRegion(page).getByText('Delivered Monday to Wednesday.').waitFor();
      const shown = await page.getByRole('region', { name: 'Print deliveries' }).locator('h3').allInnerTexts();
      assert.deepEqual(shown.sort(), ['Print subscription', 'The Weekender']);
    });

    it('adds a hold, saying the cut-off before it is saved', async () => {
      const { userId, path } = await printReader();
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      await region.getByRole('button', { name: 'Add a hold to Print subscription' }).click();
      const form = region.getByRole('form', { name: 'Add a hold' });
      await form.getByText(holdCutoffText()).waitFor();
      await screenshot(page, `print-hold-form-${kind}`);
      await form.getByLabel('First day held').fill(dateIn(10));
      await form.getByLabel('Last day held').fill(dateIn(16));
      await form.getByLabel('Compensation').selectOption({ label: 'Credit the reader' });
      await screenshot(page, `print-hold-form-filled-${kind}`, kind === 'SQLite' ? 'print' : undefined);
      await form.getByRole('button', { name: 'Add hold' }).click();
      await region
        .getByRole('status')
        .getByText(`Hold ${dateIn(10)} to ${dateIn(16)} added: 7 deliveries missed.`)
        .waitFor();
      await region.getByText('7 deliveries missed · credited').waitFor();
      const [hold] = await holdsOf(path);
      assert.deepEqual(
        [hold.attributes.startDate, hold.attributes.endDate, hold.attributes.compensation],
        [dateIn(10), dateIn(16), 'credit'],
      );
    });

    it('fills in the first open date, focuses the first field, and sends on Enter', async () => {
      const { userId, path } = await printReader();
      const page = await openAsAgent(userId);
      const { firstOpenDate } = (await rig.service.client.get(`${path}/holds`)).body.meta;
      await printRegion(page)
        .getByRole('button', { name: /^Add a hold/ })
        .click();
      const first = printRegion(page).getByLabel('First day held');
      const id = await first.getAttribute('id');
      await page.waitForFunction(
        `document.activeElement?.id === '${id}' && document.activeElement.value !== ''`,
        undefined,
        {
          timeout: 5000,
        },
      );
      assert.equal(await first.inputValue(), firstOpenDate);
      await page.keyboard.press('Tab');
      await page.keyboard.type(daysAfter(firstOpenDate, 2));
      await page.keyboard.press('Enter');
      // The notice alone: the hold's row says "3 deliveries missed" too.
      await printRegion(page)
        .getByText(`Hold ${firstOpenDate} to ${daysAfter(firstOpenDate, 2)} added: 3 deliveries missed.`)
        .waitFor();
      const [hold] = await holdsOf(path);
      assert.deepEqual(
        [hold.attributes.startDate, hold.attributes.endDate, hold.attributes.compensation],
        [firstOpenDate, daysAfter(firstOpenDate, 2), 'extend'],
      );
    });

    it('shows PAST_CUTOFF and HOLD_OVERLAP at the start date, and nothing is saved', async () => {
      const { userId, path } = await printReader();
      const made = await rig.service.client.post(`${path}/holds`, {
        data: { type: 'holds', attributes: { startDate: dateIn(10), endDate: dateIn(12) } },
      });
      assert.equal(made.status, 201, made.text);
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      await region.getByRole('button', { name: /^Add a hold/ }).click();
      const start = region.getByLabel('First day held');
      await start.fill(dateIn(-1));
      await region.getByLabel('Last day held').fill(dateIn(3));
      await region.getByRole('button', { name: 'Add hold' }).click();
      await region.getByText(/is past its cut-off: the first date still open to changes is/).waitFor();
      assert.equal(await start.getAttribute('aria-invalid'), 'true');
      await start.fill(dateIn(12));
      await region.getByLabel('Last day held').fill(dateIn(14));
      await region.getByRole('button', { name: 'Add hold' }).click();
      await region.getByText(/overlaps hold \d+ of this subscription/).waitFor();
      await screenshot(page, `print-hold-422-${kind}`);
      assert.equal((await holdsOf(path)).length, 1);
    });

    it('shows HOLD_ALLOWANCE_EXCEEDED at the last day', async () => {
      const { userId, path } = await printReader();
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      await region.getByRole('button', { name: /^Add a hold/ }).click();
      await region.getByLabel('First day held').fill(dateIn(5));
      await region.getByLabel('Last day held').fill(dateIn(5 + 100));
      await region.getByRole('button', { name: 'Add hold' }).click();
      const end = region.getByLabel('Last day held');
      await region.getByText(/more than the 35 a year allowed/).waitFor();
      assert.equal(await end.getAttribute('aria-invalid'), 'true');
      assert.equal((await holdsOf(path)).length, 0);
    });

    it('withdraws a hold not yet started, which then shows folded among the ended and withdrawn', async () => {
      const { userId, path } = await printReader();
      const made = await rig.service.client.post(`${path}/holds`, {
        data: { type: 'holds', attributes: { startDate: dateIn(10), endDate: dateIn(11) } },
      });
      assert.equal(made.status, 201, made.text);
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      await region.getByRole('button', { name: `Withdraw hold ${dateIn(10)} to ${dateIn(11)}` }).click();
      await region
        .getByRole('status')
        .getByText(`Hold ${dateIn(10)} to ${dateIn(11)} withdrawn.`)
        .waitFor();
      await region.getByText('No hold running or to come.').waitFor();
      const folded = region.locator('details');
      assert.equal(await folded.getAttribute('open'), null);
      await folded.getByText('Ended and withdrawn holds (the last 1)').click();
      await folded.getByText('withdrawn', { exact: true }).waitFor();
      const [hold] = await holdsOf(path);
      assert.equal(hold.attributes.status, 'withdrawn');
    });

    it('ends an active hold early on the last day typed', async () => {
      const { userId, subscriptionId, path } = await printReader();
      await createStartedHold(rig.service.store, userId, subscriptionId);
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      assert.equal(await region.getByRole('button', { name: /^Withdraw/ }).count(), 0);
      await region.getByRole('button', { name: `End hold ${dateIn(-2)} to ${dateIn(20)} early` }).click();
      const last = region.getByLabel('Last day');
      await last.fill(dateIn(5));
      await last.press('Enter');
      await region
        .getByRole('status')
        .getByText(`Hold now ends on ${dateIn(5)}: deliveries resume the day after.`)
        .waitFor();
      const [hold] = await holdsOf(path);
      assert.deepEqual([hold.attributes.endDate, hold.attributes.status], [dateIn(5), 'active']);
    });

    it('lists delivery complaints with a repeat badge, and adds one', async () => {
      const { userId, path } = await printReader();
      for (const [deliveryDate, reason] of [
        [dateIn(-9), 'wet'],
        [dateIn(-5), 'missed'],
      ]) {
        const made = await rig.service.client.post(`${path}/delivery-complaints`, {
          data: { type: 'delivery-complaints', attributes: { deliveryDate, reason, remedy: 'extend' } },
        });
        assert.equal(made.status, 201, made.text);
      }
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      const items = region.locator('ul.records li').filter({ hasText: /Missed|Wet/ });
      // The complaints are read after the page opens: both are shown before they are read off it.
      await items.nth(1).waitFor();
      assert.deepEqual(await items.allInnerTexts(), [
        `${dateIn(-5)} Missed · term extended by one delivery repeat`,
        `${dateIn(-9)} Wet · term extended by one delivery`,
      ]);
      await region.getByRole('button', { name: 'Add a delivery complaint to Print subscription' }).click();
      await region.getByLabel('Delivery date').fill(dateIn(-1));
      await region.getByLabel('Reason').selectOption({ label: 'Damaged' });
      await region.getByLabel('Remedy').selectOption({ label: 'Redeliver on the next run' });
      await region.getByRole('button', { name: 'Add complaint' }).click();
      await region
        .getByRole('status')
        .getByText(`Complaint for ${dateIn(-1)} added.`)
        .waitFor();
      const complaints = (await rig.service.client.get(`${path}/delivery-complaints`)).body.data as any[];
      const added = complaints.find((c) => c.attributes.deliveryDate === dateIn(-1));
      assert.deepEqual([added.attributes.reason, added.attributes.remedy], ['damaged', 'redeliver']);
      await region.getByText(`redelivered on ${added.attributes.redeliveryDate}`).waitFor();
    });

    it('shows NOT_A_DELIVERY at the delivery date for a date to come', async () => {
      const { userId, path } = await printReader();
      const page = await openAsAgent(userId);
      const region = printRegion(page);
      await region.getByRole('button', { name: /^Add a delivery complaint/ }).click();
      const date = region.getByLabel('Delivery date');
      await date.fill(dateIn(3));
      await date.press('Enter');
      await region.locator('[id$="-deliveryDate-error"]').waitFor();
      assert.equal(await date.getAttribute('aria-invalid'), 'true');
      assert.equal((await rig.service.client.get(`${path}/delivery-complaints`)).body.data.length, 0);
    });

    it('adds a temporary address with the country picked by name', async () => {
      const { userId } = await printReader();
      const page = await openAsAgent(userId);
      const section = page.getByRole('region', { name: 'Temporary addresses' });
      await section.getByRole('button', { name: 'Add a temporary address' }).click();
      const form = section.getByRole('form', { name: 'Add a temporary address' });
      await form.getByText(holdCutoffText().replaceAll('stopped', 'sent elsewhere')).waitFor();
      await form.getByLabel('First day there').fill(dateIn(20));
      await form.getByLabel('Last day there').fill(dateIn(34));
      await form.getByLabel('Street address').fill('2 Shore Road');
      await form.getByLabel('Town or city').fill('Brightsea');
      await form.getByLabel('Postal code').fill('BS1 1AA');
      await form.getByLabel('Country').selectOption({ label: 'United Kingdom' });
      await form.getByRole('button', { name: 'Add temporary address' }).click();
      await section
        .getByRole('status')
        .getByText(`Temporary address ${dateIn(20)} to ${dateIn(34)} added.`)
        .waitFor();
      await section.getByText('2 Shore Road, Brightsea, BS1 1AA, GB').waitFor();
      const [stored] = await temporaryAddressesOf(userId);
      assert.deepEqual(stored.attributes.address, ADDRESS);
      assert.deepEqual([stored.attributes.startDate, stored.attributes.endDate], [dateIn(20), dateIn(34)]);
    });

    it("shows the address rules' refusal at the field they name", async () => {
      const { userId } = await printReader();
      const page = await openAsAgent(userId);
      const section = page.getByRole('region', { name: 'Temporary addresses' });
      await section.getByRole('button', { name: 'Add a temporary address' }).click();
      await section.getByLabel('Last day there').fill(dateIn(30));
      await section.getByLabel('State, province or region').fill('California');
      await section.getByLabel('Country').selectOption({ label: 'United States' });
      await section.getByRole('button', { name: 'Add temporary address' }).click();
      const region = section.getByLabel('State, province or region');
      await section.locator('[id="temporary-address.addressRegion-error"]').waitFor();
      assert.equal(await region.getAttribute('aria-invalid'), 'true');
      await screenshot(page, `print-temporary-422-${kind}`);
      assert.equal((await temporaryAddressesOf(userId)).length, 0);
    });

    it('withdraws a temporary address not yet started, and ends a running one early', async () => {
      const { userId } = await printReader();
      const coming = await rig.service.client.post(`/users/${userId}/temporary-addresses`, {
        data: {
          type: 'temporary-addresses',
          attributes: { startDate: dateIn(40), endDate: dateIn(45), address: ADDRESS },
        },
      });
      assert.equal(coming.status, 201, coming.text);
      const running = await rig.service.store.temporaryAddresses.create(
        userId,
        () => ({ startDate: today() - 3, endDate: today() + 20, address: { ...ADDRESS } }),
        AUDIT,
      );
      assert.ok(running);
      const page = await openAsAgent(userId);
      const section = page.getByRole('region', { name: 'Temporary addresses' });
      await section.getByRole('button', { name: `Withdraw temporary address ${dateIn(40)} to ${dateIn(45)}` }).click();
      await section
        .getByRole('status')
        .getByText(`Temporary address ${dateIn(40)} to ${dateIn(45)} withdrawn.`)
        .waitFor();
      await section.getByRole('button', { name: `End temporary address ${dateIn(-3)} to ${dateIn(20)} early` }).click();
      const last = section.getByLabel('Last day', { exact: false }).first();
      await last.fill(dateIn(6));
      await last.press('Enter');
      await section
        .getByRole('status')
        .getByText(`Temporary address now ends on ${dateIn(6)}.`)
        .waitFor();
      const stored = await temporaryAddressesOf(userId);
      assert.deepEqual(
        stored.map((t) => [t.attributes.startDate, t.attributes.endDate]),
        [[dateIn(-3), dateIn(6)]],
      );
    });
  });
});
