/**
 * A site licence's page in the console, on both stores: found by its email domain in the search
 * (with or without the @) and reached from its row on its owner's page; its networks, domains,
 * seat holders and usage by month (a chart, and the same numbers as a table); its terms edited,
 * with a refused range shown at its line; a seat given by email, one past the last refused with
 * the service's words, and one taken back after a question; axe-core finds no serious or critical
 * violation on it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { createUser } from '../support/fixtures.js';
import { missingChromium, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

forEachStore((kind) => {
  describe("a site licence's page", { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    let page: Page;
    before(async () => {
      // Usage is added to the store when the test says, not on a timer.
      rig = await startConsole(kind, { licenceUsageFlushMs: 3_600_000 });
      page = await rig.signedInPage('agent');
    });
    after(() => rig?.close());

    /** A site licence of a new owner, its seats given to `holders`; its owner, id and path. */
    async function licence(attributes: Record<string, unknown>, holders: string[] = []) {
      const owner = await createUser(rig.service.client, { givenName: 'Uni', familyName: `Library ${kind}` });
      const made = await rig.service.client.post(`/users/${owner}/subscriptions`, {
        data: {
          type: 'subscriptions',
          attributes: { dateStarted: '2020-01-01T00:00:00+00:00', dateEnded: null, license: 'site', ...attributes },
        },
      });
      assert.equal(made.status, 201, made.text);
      const id: string = made.body.data.id;
      const path = `/users/${owner}/subscriptions/${id}`;
      for (const holder of holders) {
        const seat = await rig.service.client.post(`${path}/seats`, {
          data: { type: 'seats', relationships: { user: { data: { type: 'users', id: holder } } } },
        });
        assert.equal(seat.status, 201, seat.text);
      }
      return { owner, id, path };
    }

    const region = (name: string) => page.getByRole('region', { name, exact: true });

    it('is found by its domain, shows its terms, holders and usage, and is linked from its owner', async () => {
      const domain = `uni-${randomUUID().slice(0, 8)}.example`;
      const hedy = await createUser(rig.service.client, { givenName: 'Hedy', familyName: 'Lamarr' });
      const { owner, id } = await licence({ ipRanges: ['198.51.100.0/24'], emailDomains: [domain], seats: 5 }, [hedy]);
      const reader = await createUser(rig.service.client, { email: `ada@${domain}` });
      for (let i = 0; i < 3; i++) await rig.service.client.get('/access?filter[ip]=198.51.100.7');
      await rig.service.client.get(`/users/${reader}/access`);
      await rig.service.client.get(`/users/${hedy}/access`);
      await rig.service.app.licenceUsage.flush();

      await page.getByLabel('Name, email, circulation number or reader id').fill(`@${domain}`);
      const found = region(`Site licences for ${domain}`);
      await found.getByRole('link', { name: `Site licence ${id} of Uni Library ${kind}` }).click();
      await page.getByRole('heading', { name: `Site licence ${id}`, exact: true }).waitFor();
      assert.equal(await page.getByLabel('IP ranges, one a line').inputValue(), '198.51.100.0/24');
      assert.equal(await page.getByLabel('Email domains, one a line').inputValue(), domain);
      assert.equal(await page.getByLabel('Seats (empty for none)').inputValue(), '5');
      await region('Seats')
        .getByRole('list', { name: 'Seat holders' })
        .getByRole('link', { name: 'Hedy Lamarr' })
        .waitFor();

      const usage = region('Usage by month');
      await usage.getByRole('img', { name: /^Usage by month Access checks the licence granted/ }).waitFor();
      const month = new Date().toISOString().slice(0, 7);
      const row = usage
        .getByRole('table', { name: 'Access checks granted per month' })
        .getByRole('row', { name: month });
      assert.deepEqual(await row.getByRole('cell').allInnerTexts(), ['3', '1', '1', '5']);
      assert.equal(await usage.getByRole('row').count(), 13);
      await screenshot(page, `licence-${kind}`, kind === 'SQLite' ? 'licence' : undefined);
      const { violations } = await new AxeBuilder({ page }).analyze();
      assert.deepEqual(
        violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
        [],
      );

      await page.getByRole('link', { name: `Uni Library ${kind}` }).click();
      await page.getByRole('heading', { name: `Uni Library ${kind}` }).waitFor();
      assert.equal(new URL(page.url()).hash, `#/readers/${owner}`);
      await page.getByRole('link', { name: `Site licence ${id}: networks, domains, seats and usage` }).click();
      await page.getByRole('heading', { name: `Site licence ${id}`, exact: true }).waitFor();
    });

    it('edits its terms, gives seats by email, refuses one too many and takes one back', async () => {
      const hedy = await createUser(rig.service.client, { givenName: 'Hedy', familyName: 'Lamarr' });
      const graceEmail = `grace-${randomUUID().slice(0, 8)}@navy.example`;
      await createUser(rig.service.client, { email: graceEmail, givenName: 'Grace', familyName: 'Hopper' });
      const alan = await createUser(rig.service.client, { givenName: 'Alan', familyName: 'Turing' });
      const { owner, id, path } = await licence({ ipRanges: ['198.51.100.0/24'], seats: 2 }, [hedy]);
      await page.goto(`${rig.service.baseUrl}/console#/readers/${owner}/licences/${id}`);
      await page.getByRole('heading', { name: `Site licence ${id}`, exact: true }).waitFor();

      const ranges = page.getByLabel('IP ranges, one a line');
      await ranges.fill('198.51.100.0/24\n10.1.2.3/8');
      await page.getByRole('button', { name: 'Save networks, domains and seats' }).click();
      await page.getByText('Line 2 (10.1.2.3/8) has host bits set: the network of this prefix is 10.0.0.0/8').waitFor();
      assert.equal(await ranges.getAttribute('aria-invalid'), 'true');
      await ranges.fill('198.51.100.0/24\n2001:DB8::/32');
      await page.getByRole('button', { name: 'Save networks, domains and seats' }).click();
      await page.getByRole('status').getByText('Networks, domains and seats saved.').waitFor();
      assert.equal(await ranges.inputValue(), '198.51.100.0/24\n2001:db8::/32');
      assert.deepEqual((await rig.service.client.get(path)).body.data.attributes.ipRanges, [
        '198.51.100.0/24',
        '2001:db8::/32',
      ]);

      const seats = region('Seats');
      const who = seats.getByLabel("Reader's email or reader id");
      await who.fill(graceEmail);
      await seats.getByRole('button', { name: 'Give seat' }).click();
      await seats.getByRole('link', { name: 'Grace Hopper' }).waitFor();
      await who.fill(alan);
      await seats.getByRole('button', { name: 'Give seat' }).click();
      await seats.getByText('the licence has given all of its 2 seats').waitFor();
      assert.equal(await who.getAttribute('aria-invalid'), 'true');

      await seats.getByRole('button', { name: 'Take back the seat of Hedy Lamarr' }).click();
      await seats.getByRole('alertdialog', { name: 'Take back the seat of Hedy Lamarr?' }).waitFor();
      await seats.getByRole('button', { name: 'Yes, take it back' }).click();
      await seats.getByRole('status').getByText('Seat of Hedy Lamarr taken back.').waitFor();
      assert.equal(await seats.getByRole('link', { name: 'Hedy Lamarr' }).count(), 0);
      const held = (await rig.service.client.get(`${path}/seats`)).body.data;
      assert.equal(held.length, 1);
      assert.notEqual(held[0].relationships.user.data.id, hedy);
    });
  });
});
