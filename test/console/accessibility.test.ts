/**
 * The console for everyone: axe-core finds no serious or critical violation on any of its
 * screens (as an admin sees them, who sees every one), at a laptop's 1280×800 and a phone's 390×844 (each saved as a screenshot under
 * test-artifacts/), and a keyboard alone can sign in, find a reader and change them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { createSubscription, createUser, uniqueEmail } from '../support/fixtures.js';
import { dateIn } from '../support/print.js';
import {
  missingChromium,
  screenshot,
  signInThroughConsole,
  startConsole,
  type ConsoleRig,
} from '../support/console.js';
import { createStaff, type TestStaff } from '../support/staff.js';
import type { StoreKind } from '../support/stores.js';

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/** The serious and critical violations axe-core finds on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  assert.ok(results.passes.length > 0, 'axe-core checked nothing');
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Presses Tab until the focused element `e` satisfies `test`, a JavaScript expression over it (at most 80 presses). */
async function tabTo(page: Page, test: string): Promise<void> {
  for (let i = 0; i < 80; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`((e) => e !== null && (${test}))(document.activeElement)`)) return;
  }
  assert.fail(`Tab never reached an element where ${test}`);
}

// axe-core and a keyboard meet the front end, the same whatever store is behind it; the console's
// other tests drive its screens on both stores. So this runs on one.
describe('SQLite', () => {
  const kind: StoreKind = 'SQLite';
  describe('the console for everyone', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    let staff: TestStaff;
    const product = `daily-${kind.toLowerCase()}`;
    const newsletter = `briefing-${kind.toLowerCase()}`;
    before(async () => {
      rig = await startConsole(kind);
      for (const [type, id, name] of [
        ['products', product, 'The Daily'],
        ['newsletters', newsletter, 'The Briefing'],
      ] as const) {
        const made = await rig.service.client.post(`/${type}`, { data: { type, id, attributes: { name } } });
        assert.equal(made.status, 201, made.text);
      }
      staff = await createStaff(rig.service.client, 'admin', 'Kim Keys');
    });
    after(() => rig?.close());

    /** A hold to come and one withdrawn, two complaints (the later a repeat) and a temporary address to come. */
    async function givePrintRecords(userId: string, subscriptionId: string): Promise<void> {
      const path = `/users/${userId}/subscriptions/${subscriptionId}`;
      const client = rig.service.client;
      const made = [
        await client.post(`${path}/holds`, {
          data: { type: 'holds', attributes: { startDate: dateIn(10), endDate: dateIn(12) } },
        }),
        await client.post(`${path}/holds`, {
          data: { type: 'holds', attributes: { startDate: dateIn(20), endDate: dateIn(21), compensation: 'donate' } },
        }),
        await client.post(`${path}/delivery-complaints`, {
          data: { type: 'delivery-complaints', attributes: { deliveryDate: dateIn(-6), reason: 'wet' } },
        }),
        await client.post(`${path}/delivery-complaints`, {
          data: {
            type: 'delivery-complaints',
            attributes: { deliveryDate: dateIn(-3), reason: 'late', remedy: 'redeliver' },
          },
        }),
        await client.post(`/users/${userId}/temporary-addresses`, {
          data: {
            type: 'temporary-addresses',
            attributes: {
              startDate: dateIn(30),
              endDate: dateIn(40),
              address: {
                streetAddress: '1 Quay',
                addressLocality: 'Porthmadog',
                postalCode: 'LL49 9AA',
                addressCountry: 'GB',
              },
            },
          },
        }),
      ];
      for (const response of made) assert.equal(response.status, 201, response.text);
      assert.equal((await client.delete(made[1]!.body.data.links.self.replace(rig.service.baseUrl, ''))).status, 204);
    }

    for (const viewport of VIEWPORTS) {
      const size = `${viewport.width}x${viewport.height}`;
      it(`has no serious or critical violation on any screen at ${size}`, async () => {
        const email = uniqueEmail();
        const id = await createUser(rig.service.client, {
          email,
          givenName: 'Axel',
          familyName: 'Axe',
          newsletters: { add: [newsletter] },
        });
        const privacy = await rig.service.client.post('/privacy-requests', {
          data: {
            type: 'privacy-requests',
            attributes: { kind: 'access', receivedAt: `${dateIn(-40)}T09:00:00Z`, notes: 'by letter' },
            relationships: { user: { data: { type: 'users', id } } },
          },
        });
        assert.equal(privacy.status, 201, privacy.text);
        const subscription = await createSubscription(rig.service.client, id, {
          resource: 'print-online',
          dateStarted: '2025-01-01T00:00:00Z',
          dateEnded: '2099-01-01T00:00:00Z',
        });
        await givePrintRecords(id, subscription);
        const page = await rig.newPage(viewport);
        const check = async (screen: string) => {
          await screenshot(page, `${screen}-${size}-${kind}`);
          assert.deepEqual(await seriousViolations(page), [], `${screen} at ${size}`);
        };
        await page.goto(`${rig.service.baseUrl}/console`);
        await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
        await check('a11y-sign-in');
        await signInThroughConsole(page, rig.service.baseUrl, staff);
        await page.getByLabel('Name, email, circulation number or reader id').fill(email);
        await page.getByRole('link', { name: 'Axel Axe' }).waitFor();
        await check('a11y-search');
        await page.getByRole('link', { name: 'Axel Axe' }).click();
        await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
        await check('a11y-reader');
        await page.getByLabel('Email', { exact: true }).fill('not an email');
        await page.getByRole('button', { name: 'Save profile' }).click();
        await page.locator('#email-error').waitFor();
        await page.getByRole('button', { name: /^Extend/ }).click();
        await page.getByRole('button', { name: /^Delete/ }).click();
        await page.getByRole('button', { name: 'Yes, delete it' }).waitFor();
        await page.getByRole('button', { name: 'History of The Briefing' }).click();
        await page.getByRole('region', { name: 'Consent history: The Briefing' }).getByRole('listitem').waitFor();
        await check('a11y-reader-forms');
        const print = page.getByRole('region', { name: 'Print deliveries' });
        await print.getByRole('button', { name: /^Add a hold/ }).click();
        await print.getByRole('button', { name: /^Add a delivery complaint/ }).click();
        await print.getByText(/Ended and withdrawn holds/).click();
        const temporary = page.getByRole('region', { name: 'Temporary addresses' });
        await temporary.getByRole('button', { name: 'Add a temporary address' }).click();
        await temporary.getByLabel('Country').selectOption({ label: 'United States' });
        await temporary.getByLabel('State, province or region').fill('California');
        await temporary.getByRole('button', { name: 'Add temporary address' }).click();
        await temporary.locator('[id="temporary-address.addressRegion-error"]').waitFor();
        await check('a11y-reader-print');
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Dashboard' }).click();
        await page.getByRole('table', { name: 'Subscriptions per week' }).waitFor();
        await check('a11y-dashboard');
        await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Privacy requests' }).click();
        // The test runs at each size on one service: a request for an Axel Axe of each run is open.
        await page.getByRole('link', { name: 'Axel Axe' }).first().waitFor();
        await check('a11y-privacy-requests');
      });
    }

    it('lets a keyboard alone sign in, find a reader, edit them, expire a subscription and open the dashboard', async () => {
      const email = uniqueEmail();
      const id = await createUser(rig.service.client, { email, givenName: 'Kay', familyName: 'Board' });
      await createSubscription(rig.service.client, id, {
        dateStarted: '2025-01-01T00:00:00Z',
        dateEnded: '2099-01-01T00:00:00Z',
      });
      const page = await rig.newPage();
      await page.goto(`${rig.service.baseUrl}/console`);
      await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      await tabTo(page, "e.id === 'email'");
      await page.keyboard.type(staff.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(staff.password);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Find a reader' }).waitFor();
      await tabTo(page, "e.id === 'search'");
      await page.keyboard.type(email);
      await page.getByRole('link', { name: 'Kay Board' }).waitFor();
      await tabTo(page, "e.textContent === 'Kay Board'");
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
      await tabTo(page, "(e.getAttribute('aria-label') ?? '').startsWith('Expire')");
      await page.keyboard.press('Enter');
      await page.getByRole('alertdialog').waitFor();
      await page.waitForFunction("document.activeElement?.textContent === 'Yes, expire it'", undefined, {
        timeout: 5000,
      });
      await page.keyboard.press('Enter');
      await page.locator('.status-expired').waitFor();
      await tabTo(page, "e.id === 'givenName'");
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('Keyed');
      await page.keyboard.press('Enter');
      await page.getByText('Saved.').waitFor();
      await tabTo(page, "e.textContent === 'Dashboard'");
      await page.keyboard.press('Enter');
      await page.getByRole('table', { name: 'Subscriptions per week' }).waitFor();
      await screenshot(page, `keyboard-${kind}`);
      const read = await rig.service.client.get(`/users/${id}`);
      assert.equal(read.body.data.attributes.givenName, 'Keyed');
      const [subscription] = (await rig.service.client.get(`/users/${id}/subscriptions`)).body.data;
      assert.equal(subscription.attributes.status, 'expired');
    });
  });
});
