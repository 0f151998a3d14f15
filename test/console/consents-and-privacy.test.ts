/**
 * Consent and privacy in the console, on both stores: a reader's newsletter consents on their page
 * (state, source, since when) with one consent's history opened, a newsletter removed and a
 * suppressed one refused; and, for an admin, a privacy request opened from the reader's page, then
 * the open ones listed soonest due first with the overdue marked, and one marked completed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { createUser } from '../support/fixtures.js';
import { missingChromium, openReaderAsAgent, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

/** What each item of a list says, as a user reads it, with every minute shown as TIME. */
async function itemsOf(list: Locator): Promise<string[]> {
  const items = await list.locator(':scope > li').allInnerTexts();
  return items.map((text) =>
    text
      .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/g, 'TIME')
      .replace(/\s+/g, ' ')
      .trim(),
  );
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
      const consents = region.getByRole('list', { name: 'Consent for each newsletter the reader ever had' });
      await consents.getByText('Morning Briefing').waitFor();
      assert.deepEqual(await itemsOf(consents), [
        'Evening Digest subscribed through the API, TIME Remove History',
        'Morning Briefing bounced (suppressed) as the email provider reported, TIME History',
      ]);
      // A suppressed reader can only be removed by their own confirmation: no Remove is offered.
      assert.equal(await region.getByRole('button', { name: 'Remove Morning Briefing' }).count(), 0);
      // Privacy requests are an admin's: an agent is offered neither the screen nor the form.
      assert.equal(await page.getByRole('link', { name: 'Privacy requests' }).count(), 0);
      assert.equal(await page.getByRole('region', { name: 'Privacy request' }).count(), 0);

      await region.getByRole('button', { name: 'Remove Evening Digest' }).click();
      await consents.getByText('unsubscribed').waitFor();
      await region.getByRole('button', { name: 'History of Evening Digest' }).click();
      const history = region.getByRole('region', { name: 'Consent history: Evening Digest' });
      await history.getByText('in the console').waitFor();
      const [added, removed, ...more] = await itemsOf(history.getByRole('list'));
      assert.match(added ?? '', /^TIME subscribed through the API, by \S/);
      assert.deepEqual([removed, more], ['TIME unsubscribed in the console, by Agent agent', []]);
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
      await region.scrollIntoViewIfNeeded();
      await screenshot(page, `consents-${kind}`, kind === 'SQLite' ? 'consents' : undefined);
      const stored = (await client.get(`/users/${userId}/newsletter-consents`)).body.data as any[];
      assert.deepEqual(stored.map((c) => [c.id, c.attributes.state, c.attributes.source]).sort(), [
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
      const list = page.getByRole('list', { name: 'Open privacy requests, the soonest due first' });
      await list.getByRole('link', { name: 'Priya Vasi' }).waitFor();
      const late = overdue.body.data;
      assert.deepEqual(await itemsOf(list), [
        `Due ${late.attributes.dueAt.slice(0, 10)} overdue: Access: a copy of their data, for Otto Late ` +
          `Request ${late.id}, received TIME · by letter Mark completed`,
        `Due ${due}: Erasure of their data, for Priya Vasi Request ${openedId}, received TIME · Asked by phone Mark completed`,
      ]);
      await screenshot(page, `privacy-requests-${kind}`, kind === 'SQLite' ? 'privacy-requests' : undefined);

      await list.getByRole('button', { name: `Mark request ${late.id} completed` }).click();
      await page.getByRole('status').getByText(`Request ${late.id} marked completed.`).waitFor();
      await list.getByRole('button', { name: `Mark request ${late.id} completed` }).waitFor({ state: 'detached' });
      assert.equal(await list.getByRole('listitem').count(), 1);
      const completed = (await client.get(`/privacy-requests/${late.id}`)).body.data.attributes;
      assert.ok(
        completed.completedAt !== null && Date.parse(completed.completedAt) >= Date.parse(completed.receivedAt),
      );
    });
  });
});
