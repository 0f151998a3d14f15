/**
 * What an agent does to a reader from the console, each journey from sign-in to the change
 * visible through the API: subscriptions added, extended, expired and deleted (after a
 * confirmation), newsletters added and removed, a password-reset token issued (to an admin), the reader erased
 * once their email is typed; and each form's 422 messages shown at the field they name.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSubscription, createUser, uniqueEmail } from '../support/fixtures.js';
import { createReader, resetDocument } from '../support/readers.js';
import { missingChromium, openReaderAsAgent, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

const DAY = 86_400_000;
const instant = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 19) + 'Z';
const day = (offsetDays: number) => instant(offsetDays).slice(0, 10);

forEachStore((kind) => {
  describe(
    "a reader's subscriptions, newsletters and account, changed from the console",
    { skip: missingChromium },
    () => {
      let rig: ConsoleRig;
      const product = `weekly-${kind.toLowerCase()}`;
      const newsletter = `evening-${kind.toLowerCase()}`;
      before(async () => {
        rig = await startConsole(kind);
        const admin = rig.service.client;
        for (const [type, id, name] of [
          ['products', product, 'The Weekly'],
          ['newsletters', newsletter, 'Evening Digest'],
        ] as const) {
          const made = await admin.post(`/${type}`, { data: { type, id, attributes: { name } } });
          assert.equal(made.status, 201, made.text);
        }
      });
      after(() => rig?.close());

      /** A fresh browser, signed in as a new agent (or another role), on the reader's page. */
      const openAsAgent = (userId: string, role: 'agent' | 'admin' = 'agent') =>
        openReaderAsAgent(rig, userId, 'Subscriptions', role);
      const subscriptionsOf = async (userId: string) =>
        (await rig.service.client.get(`/users/${userId}/subscriptions`)).body.data as any[];

      it('adds a subscription of a product', async () => {
        const id = await createUser(rig.service.client);
        const page = await openAsAgent(id);
        await page.getByLabel('Product').selectOption({ label: 'The Weekly' });
        await page.getByLabel('Starts').fill(day(1));
        await page.getByLabel('Ends (optional)').fill(day(366));
        await page.getByRole('button', { name: 'Add subscription' }).click();
        await page.getByText('scheduled').waitFor();
        const [added] = await subscriptionsOf(id);
        assert.equal(added.relationships.product.data.id, product);
        assert.equal(added.attributes.dateStarted.slice(0, 10), day(1));
        assert.equal(added.attributes.dateEnded.slice(0, 10), day(366));
        await screenshot(page, `subscription-added-${kind}`);
      });

      it('extends a subscription by moving its end', async () => {
        const id = await createUser(rig.service.client);
        const subscription = await createSubscription(rig.service.client, id, {
          dateStarted: instant(-10),
          dateEnded: instant(20),
        });
        const page = await openAsAgent(id);
        await page.getByRole('button', { name: /^Extend/ }).click();
        await page.getByLabel('New end date').fill(day(200));
        await page.getByRole('button', { name: 'Save end date' }).click();
        await page.getByText(`→ ${day(200)}`).waitFor();
        const read = await rig.service.client.get(`/users/${id}/subscriptions/${subscription}`);
        assert.equal(read.body.data.attributes.dateEnded.slice(0, 10), day(200));
      });

      it('expires a subscription only once the agent confirms, told what the reader loses', async () => {
        const id = await createUser(rig.service.client, { givenName: 'Ellen', familyName: 'Expiry' });
        await createSubscription(rig.service.client, id, {
          resource: 'print-online',
          dateStarted: instant(-10),
          dateEnded: instant(20),
        });
        const page = await openAsAgent(id);
        await page.getByRole('button', { name: /^Expire/ }).click();
        const dialog = page.getByRole('alertdialog');
        assert.equal(
          await dialog.locator('p').first().innerText(),
          `Expire Print and online subscription, ${day(-10)} to ${day(20)} now?`,
        );
        await dialog.getByText('Ellen Expiry loses print and online access now.').waitFor();
        await screenshot(page, `subscription-expire-confirm-${kind}`);
        await dialog.getByRole('button', { name: 'Keep it' }).click();
        assert.equal((await subscriptionsOf(id))[0].attributes.status, 'active');
        await page.getByRole('button', { name: /^Expire/ }).click();
        await page.getByRole('button', { name: 'Yes, expire it' }).click();
        await page.locator('.status-expired').waitFor();
        const [expired] = await subscriptionsOf(id);
        assert.equal(expired.attributes.status, 'expired');
      });

      it('tells the agent that a reader keeps what another active subscription gives', async () => {
        const id = await createUser(rig.service.client, { givenName: 'Kim' });
        for (const resource of ['online', 'print-online']) {
          await createSubscription(rig.service.client, id, { resource, dateStarted: instant(-10), dateEnded: null });
        }
        const page = await openAsAgent(id);
        await page.getByRole('button', { name: /^Expire Online subscription/ }).click();
        await page
          .getByRole('alertdialog')
          .getByText('Kim Reader keeps their access through their other subscriptions.')
          .waitFor();
        await page.getByRole('button', { name: 'Keep it' }).click();
        await page.getByRole('button', { name: /^Expire Print and online subscription/ }).click();
        await page.getByRole('alertdialog').getByText('Kim Reader loses print access now.').waitFor();
      });

      it('offers neither Extend nor Expire on an expired subscription', async () => {
        const id = await createUser(rig.service.client);
        const expired = await createSubscription(rig.service.client, id, {
          dateStarted: instant(-5),
          dateEnded: instant(30),
        });
        assert.equal((await rig.service.client.put(`/users/${id}/subscriptions/${expired}/expire`)).status, 200);
        await createSubscription(rig.service.client, id, { dateStarted: instant(-5), dateEnded: instant(30) });
        const page = await openAsAgent(id);
        const items = page.getByRole('region', { name: 'Subscriptions' }).locator('li.subscription');
        const expiredItem = items.filter({ has: page.locator('.status-expired') });
        const activeItem = items.filter({ has: page.locator('.status-active') });
        assert.deepEqual(await expiredItem.getByRole('button').allInnerTexts(), ['Delete']);
        assert.deepEqual(await activeItem.getByRole('button').allInnerTexts(), ['Extend', 'Expire', 'Delete']);
      });

      it('offers only active products for a new subscription, by name', async () => {
        const retired = `retired-${kind.toLowerCase()}`;
        const made = await rig.service.client.post('/products', {
          data: { type: 'products', id: retired, attributes: { name: 'The Old Gazette', active: false } },
        });
        assert.equal(made.status, 201, made.text);
        const page = await openAsAgent(await createUser(rig.service.client));
        const options = await page.getByLabel('Product').locator('option').allInnerTexts();
        assert.ok(options.includes('The Weekly'), options.join(' | '));
        assert.ok(!options.includes('The Old Gazette'), options.join(' | '));
        assert.ok(!options.some((o) => o === product || o === retired), options.join(' | '));
      });

      it('deletes a subscription only once the deletion is confirmed', async () => {
        const id = await createUser(rig.service.client);
        await createSubscription(rig.service.client, id, { dateStarted: instant(-10), dateEnded: instant(20) });
        const page = await openAsAgent(id);
        await page.getByRole('button', { name: /^Delete/ }).click();
        await page.getByRole('button', { name: 'Keep it' }).click();
        assert.equal((await subscriptionsOf(id)).length, 1);
        await page.getByRole('button', { name: /^Delete/ }).click();
        await screenshot(page, `subscription-delete-confirm-${kind}`);
        await page.getByRole('button', { name: 'Yes, delete it' }).click();
        await page.getByText('No subscriptions.').waitFor();
        assert.equal((await subscriptionsOf(id)).length, 0);
      });

      it('adds a newsletter and removes it', async () => {
        const id = await createUser(rig.service.client);
        const page = await openAsAgent(id);
        await page.getByLabel('Add a newsletter').selectOption({ label: 'Evening Digest' });
        await page.getByRole('button', { name: 'Add newsletter' }).click();
        await page.getByRole('button', { name: 'Remove Evening Digest' }).waitFor();
        const added = await rig.service.client.get(`/users/${id}`);
        assert.deepEqual(added.body.data.attributes.newsletters, [newsletter]);
        await page.getByRole('button', { name: 'Remove Evening Digest' }).click();
        await page.getByText('No newsletters.').waitFor();
        const removed = await rig.service.client.get(`/users/${id}`);
        assert.deepEqual(removed.body.data.attributes.newsletters, []);
      });

      it('issues an admin a password-reset token that resets the password', async () => {
        const reader = await createReader(rig.service.client);
        const page = await openAsAgent(reader.id, 'admin');
        await page.getByRole('button', { name: 'Issue a password-reset token' }).click();
        const token = await page.locator('#reset-token').innerText();
        const reset = await rig.service.client.post('/password-resets', resetDocument(token, 'a brand new password'));
        assert.equal(reset.status, 204, reset.text);
      });

      it('offers an agent no reset token without mail, saying who can make one', async () => {
        const reader = await createReader(rig.service.client);
        const page = await openAsAgent(reader.id);
        await page.getByText('Only an admin can make a password reset link').waitFor();
        assert.equal(
          await page.getByRole('button', { name: /password-reset token|reset link|reset email/ }).count(),
          0,
        );
      });

      it('erases the reader once their email is typed', async () => {
        const email = uniqueEmail();
        const id = await createUser(rig.service.client, { email });
        const page = await openAsAgent(id);
        const erase = page.getByRole('button', { name: 'Erase reader' });
        assert.equal(await erase.isDisabled(), true);
        await page.getByLabel(`Type ${email} to confirm`).fill('someone-else@example.com');
        assert.equal(await erase.isDisabled(), true);
        await page.getByLabel(`Type ${email} to confirm`).fill(email);
        await erase.click();
        await page.getByRole('heading', { name: 'Find a reader' }).waitFor();
        await page
          .getByRole('status')
          .getByText(`Reader ${id} (Reader) was erased, with everything held about them.`)
          .waitFor();
        assert.equal((await rig.service.client.get(`/users/${id}`)).status, 404);
      });

      it("shows the API's 422 at the end date when a subscription would end before it starts", async () => {
        const id = await createUser(rig.service.client);
        await createSubscription(rig.service.client, id, { dateStarted: instant(-10), dateEnded: instant(20) });
        const page = await openAsAgent(id);
        await page.getByLabel('Product').selectOption({ label: 'The Weekly' });
        await page.getByLabel('Starts').fill(day(10));
        await page.getByLabel('Ends (optional)').fill(day(5));
        await page.getByRole('button', { name: 'Add subscription' }).click();
        await page.locator('#new-dateEnded-error').waitFor();
        await page.getByRole('button', { name: /^Extend/ }).click();
        await page.getByLabel('New end date').fill(day(-20));
        await page.getByRole('button', { name: 'Save end date' }).click();
        await page.locator('[id^="ends-"][id$="-error"]').waitFor();
        await screenshot(page, `subscription-422-${kind}`);
        assert.equal((await subscriptionsOf(id)).length, 1);
      });
    },
  );
});
