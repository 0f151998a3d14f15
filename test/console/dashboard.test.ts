/**
 * The console's dashboard: active subscriptions by resource and by product, and the subscriptions
 * started and ended in each of the last 12 weeks, as a chart and a table; every number on it the
 * one GET /reports/subscriptions answers for the subscriptions the test made.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createUser } from '../support/fixtures.js';
import {
  missingChromium,
  screenshot,
  signInThroughConsole,
  startConsole,
  type ConsoleRig,
} from '../support/console.js';
import { createStaff } from '../support/staff.js';
import { forEachStore } from '../support/stores.js';

const DAY = 86_400_000;
const instant = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().slice(0, 19) + 'Z';

/** The text of each cell (header or data) of each body row of a table. */
async function rowsOf(table: Locator): Promise<string[][]> {
  const rows = await table.locator('tbody tr').all();
  return Promise.all(rows.map(async (row) => (await row.locator('th, td').allInnerTexts()).map((text) => text.trim())));
}

forEachStore((kind) => {
  describe('the dashboard', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    let page: Page;
    const product = `gazette-${kind.toLowerCase()}`;
    before(async () => {
      rig = await startConsole(kind);
      const admin = rig.service.client;
      const made = await admin.post('/products', {
        data: { type: 'products', id: product, attributes: { name: 'The Gazette', resource: 'print' } },
      });
      assert.equal(made.status, 201, made.text);
      const subscribe = async (attributes: Record<string, unknown>, withProduct = true) => {
        const userId = await createUser(admin);
        const response = await admin.post(`/users/${userId}/subscriptions`, {
          data: {
            type: 'subscriptions',
            attributes,
            ...(withProduct ? { relationships: { product: { data: { type: 'products', id: product } } } } : {}),
          },
        });
        assert.equal(response.status, 201, response.text);
      };
      await subscribe({ dateStarted: instant(-60_000), dateEnded: null });
      await subscribe({ dateStarted: instant(-30 * DAY), dateEnded: instant(300 * DAY) });
      await subscribe({ dateStarted: instant(-40 * DAY), dateEnded: instant(-60_000) });
      await subscribe({ dateStarted: instant(-20 * DAY), dateEnded: instant(30 * DAY), resource: 'online' }, false);
      page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, await createStaff(admin, 'agent'));
    });
    after(() => rig?.close());

    it('is one click from the search, and shows the numbers GET /reports/subscriptions answers', async () => {
      const answer = await rig.service.client.get('/reports/subscriptions');
      assert.equal(answer.status, 200, answer.text);
      const report = answer.body.data.attributes;
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Dashboard' }).click();
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      const byResource = page.getByRole('region', { name: 'Active by resource' }).locator('table');
      await byResource.waitFor();
      assert.deepEqual(
        await rowsOf(byResource),
        report.activeByResource.map((r: any) => [r.resource ?? 'none', String(r.count)]),
      );
      assert.deepEqual(await rowsOf(page.getByRole('region', { name: 'Active by product' }).locator('table')), [
        ['The Gazette', String(report.activeByProduct.find((p: any) => p.product === product).count)],
        ['no product', String(report.activeByProduct.find((p: any) => p.product === null).count)],
      ]);
      assert.equal(report.activeByProduct.find((p: any) => p.product === product).count, 2);
      assert.deepEqual(
        await rowsOf(page.getByRole('table', { name: 'Subscriptions per week' })),
        report.weeks.map((w: any) => [w.week, String(w.started), String(w.ended)]),
      );
      assert.equal(report.weeks.length, 12);
      assert.ok(report.weeks.some((w: any) => w.started > 0) && report.weeks.some((w: any) => w.ended > 0));
      await screenshot(page, `dashboard-${kind}`, kind === 'SQLite' ? 'dashboard' : undefined);
    });

    it('draws a new and an ended bar for each week, each titled with its count', async () => {
      const report = (await rig.service.client.get('/reports/subscriptions')).body.data.attributes;
      await page.goto(`${rig.service.baseUrl}/console#/dashboard`);
      const chart = page.getByRole('img', { name: /New and ended subscriptions per week/ });
      await chart.waitFor();
      assert.deepEqual(
        await chart.locator('rect title').allTextContents(),
        report.weeks.flatMap((w: any) => [`${w.week}: ${w.started} new`, `${w.week}: ${w.ended} ended`]),
      );
    });
  });
});
