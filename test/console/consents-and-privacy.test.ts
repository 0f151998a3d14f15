/**
 * Consent and privacy in the console, on both stores: a reader's newsletter consents on their page
 * (state, source, since when) with one consent's history opened, a newsletter removed and a
 * suppressed one refused; and, for an admin, a privacy request opened from the reader's page, then
 * the open ones listed soonest due first with the overdue marked, and one marked completed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createUser } from '../support/fixtures.js';
import { missingChromium, openReaderAsAgent, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

/** The cells of each row of a table's body, as a user reads them. */
async function rowsOf(page: Page, table: ReturnType<Page['getByRole']>): Promise<string[][]> {
  const rows = table.locator('tbody tr');
  const count = await rows.count();
  const read: string[][] = [];
  for (let i = 0; i < count; i += 1) read.push(await rows.nth(i).locator('th, td').allInnerTexts());
  return read;
}

forEachStore((kind) => {
  describe('consent and privacy in the console', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    const morning = `morning-${kind.toLowerCase()}`;
    const evening = `evening-${kind.toLowerCase()}`;
    before(async () => {
      rig = await startConsole(kind);
      for (const [id, name] of [
        [morning, 'Morning Briefing'],
        [evening, 'Evening Digest'],
      ]) {
        const made = await rig.service.client.post('/newsletters', {
          data: { type: 'newsletters', id, attributes: { name } },
        });
        assert.equal(made.status, 201, made.text);
      }
    });
    after(() => rig?.close());

    it("shows a reader's consents and one's history, removes a newsletter and refuses a suppressed one", async () => {
      const client = rig.service.client;
      const userId = await createUser(client, {
        givenName: 'Connie',
        familyName: 'Sent',
        newsletters: { add: [morning, evening] },
      });
      const bounced = await client.patch(`/users/${userId}/newsletter-consents/${morning}`, {
        data: { type: 'newsletter-consents', id: morning, attributes: { state: 'bounced' } },
      });
      assert.equal(bounced.status, 200, bounced.text);
      const page = await openReaderAsAgent(rig, userId, 'Newsletters');
      const region = page.getByRole('region', { name: 'Newsletters' });
      const table = region.getByRole('table', { name: 'Consent for each newsletter the reader ever had' });
      await table.getByRole('rowheader', { name: 'Morning Briefing' }).waitFor();
      const rows = await rowsOf(page, table);
      assert.deepEqual(
        rows.map((cells) => cells.slice(0, 3)),
        [
          ['Evening Digest', 'subscribed', 'a program (API)'],
          ['Morning Briefing', 'bounced (suppressed)', 'the email provider'],
        ],
      );
      assert.match(rows[0]![3]!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
      // A suppressed reader can only be removed by their own confirmation: no Remove is offered.
      assert.equal(await region.getByRole('button', { name: 'Remove Morning Briefing' }).count(), 0);
      // Privacy requests are an admin's: an agent is offered neither the screen nor the form.
      assert.equal(await page.getByRole('link', { name: 'Privacy requests' }).count(), 0);
      assert.equal(await page.getByRole('region', { name: 'Privacy request' }).count(), 0);

      await region.getByRole('button', { name: 'Remove Evening Digest' }).click();
      await table.getByRole('row', { name: /Evening Digest unsubscribed the console/ }).waitFor();
      await region.getByRole('button', { name: 'History of Evening Digest' }).click();
      const history = region.getByRole('region', { name: 'Consent history: Evening Digest' });
      await history.getByRole('cell', { name: 'unsubscribed' }).waitFor();
      const changes = await rowsOf(page, history.getByRole('table'));
      assert.deepEqual(
        changes.map(([, state, source]) => [state, source]),
        [
          ['subscribed', 'a program (API)'],
          ['unsubscribed', 'the console'],
        ],
      );
      assert.equal(changes[1]![3], 'Agent agent');
      assert.equal(
        await region.getByRole('button', { name: 'History of Evening Digest' }).getAttribute('aria-expanded'),
        'true',
      );

      await region.getByLabel('Add a newsletter').selectOption({ label: 'Morning Briefing' });
      await region.getByRole('button', { name: 'Add newsletter' }).click();
      await region
        .getByRole('alert')
        .getByText(`newsletter ${morning} is suppressed for this reader (bounced)`)
        .waitFor();
      await screenshot(page, `consents-${kind}`, kind === 'SQLite' ? 'consents' : undefined);
      const consents = (await client.get(`/users/${userId}/newsletter-consents`)).body.data as any[];
      assert.deepEqual(consents.map((c) => [c.id, c.attributes.state, c.attributes.source]).sort(), [
        [evening, 'unsubscribed', 'console'],
        [morning, 'bounced', 'email-provider'],
      ]);
    });

    it('opens a privacy request from the reader page, lists the open ones by due date and completes one', async () => {
      const client = rig.service.client;
      const userId = await createUser(client, { givenName: 'Priya', familyName: 'Vasi' });
      const other = await createUser(client, { givenName: 'Otto', familyName: 'Late' });
      const request = (id: string, attributes: Record<string, unknown>) =>
        client.post('/privacy-requests', {
          data: { type: 'privacy-requests', attributes, relationships: { user: { data: { type: 'users', id } } } },
        });
      const received = new Date(Date.now() - 40 * 86_400_000).toISOString();
      const overdue = await request(other, { kind: 'access', receivedAt: received, notes: 'by letter' });
      const closed = await request(other, { kind: 'objection', receivedAt: received, completedAt: received });
      for (const made of [overdue, closed]) assert.equal(made.status, 201, made.text);

      const page = await openReaderAsAgent(rig, userId, 'Privacy request', 'admin');
      const form = page.getByRole('region', { name: 'Privacy request' });
      await form.getByLabel('Kind').selectOption({ label: 'Erasure of their data' });
      await form.getByLabel('Notes (optional)').fill('Asked by phone');
      await form.getByRole('button', { name: 'Open privacy request' }).click();
      const said = await form.getByRole('status').innerText();
      const [, openedId, due] = /^Privacy request (\d+) opened, due (\d{4}-\d{2}-\d{2})\./.exec(said) ?? [];
      assert.ok(openedId, said);
      const stored = (await client.get(`/privacy-requests/${openedId}`)).body.data;
      assert.deepEqual(
        [
          stored.attributes.kind,
          stored.attributes.notes,
          stored.attributes.dueAt.slice(0, 10),
          stored.relationships.user.data.id,
        ],
        ['erasure', 'Asked by phone', due, userId],
      );

      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Privacy requests' }).click();
      const table = page.getByRole('table', { name: 'Open privacy requests, the soonest due first' });
      await table.getByRole('link', { name: 'Priya Vasi' }).waitFor();
      const rows = await rowsOf(page, table);
      assert.deepEqual(
        rows.map(([id, dueCell, what, reader, , notes]) => [id, dueCell, what, reader, notes]),
        [
          [
            overdue.body.data.id,
            `${overdue.body.data.attributes.dueAt.slice(0, 10)} overdue`,
            'Access: a copy of their data',
            'Otto Late',
            'by letter',
          ],
          [openedId, due, 'Erasure of their data', 'Priya Vasi', 'Asked by phone'],
        ],
      );
      await screenshot(page, `privacy-requests-${kind}`, kind === 'SQLite' ? 'privacy-requests' : undefined);

      await table.getByRole('button', { name: `Mark request ${overdue.body.data.id} completed` }).click();
      await page.getByRole('status').getByText(`Request ${overdue.body.data.id} marked completed.`).waitFor();
      await table
        .getByRole('button', { name: `Mark request ${overdue.body.data.id} completed` })
        .waitFor({ state: 'detached' });
      assert.equal(await table.locator('tbody tr').count(), 1);
      const completed = (await client.get(`/privacy-requests/${overdue.body.data.id}`)).body.data.attributes;
      assert.ok(
        completed.completedAt !== null && Date.parse(completed.completedAt) >= Date.parse(completed.receivedAt),
      );
    });
  });
});
