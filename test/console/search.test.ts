/**
 * Finding a reader from the console's one search box: by exact email, circulation number or id,
 * searched once typing pauses, 20 at a time, each result a link to the reader's page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createUser, uniqueEmail } from '../support/fixtures.js';
import {
  missingChromium,
  screenshot,
  signInThroughConsole,
  startConsole,
  type ConsoleRig,
} from '../support/console.js';
import { createStaff } from '../support/staff.js';
import { forEachStore } from '../support/stores.js';

forEachStore((kind) => {
  describe('finding a reader', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    let page: Page;
    before(async () => {
      rig = await startConsole(kind);
      page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, await createStaff(rig.service.client, 'agent'));
    });
    after(() => rig?.close());

    const search = (text: string) => page.getByLabel('Email, circulation number or reader id').fill(text);

    it('finds a reader by exact email and opens their page', async () => {
      const email = uniqueEmail();
      const id = await createUser(rig.service.client, { email, givenName: 'Esther', familyName: 'Email' });
      await search(email);
      await page.getByRole('link', { name: 'Esther Email' }).click();
      await page.getByRole('heading', { name: 'Esther Email' }).waitFor();
      assert.equal(new URL(page.url()).hash, `#/readers/${id}`);
      await screenshot(page, `search-opened-${kind}`);
      await page.goBack();
    });

    it('finds a reader by circulation number', async () => {
      await createUser(rig.service.client, { circulationNumber: `N-${kind}-77`, familyName: 'Numbered' });
      await search(`N-${kind}-77`);
      await page.getByRole('link', { name: 'Numbered' }).waitFor();
      await screenshot(page, `search-${kind}`);
    });

    it('finds a reader by id', async () => {
      const id = await createUser(rig.service.client, { familyName: 'Identified' });
      await search(id);
      await page.getByRole('link', { name: 'Identified' }).waitFor();
    });

    it('says so when nobody matches', async () => {
      await search('nobody-at-all@example.com');
      await page.getByText('No reader found.').waitFor();
    });

    it('asks once typing pauses, not at each key, and for 20 readers at a time', async () => {
      const email = uniqueEmail();
      await createUser(rig.service.client, { email, familyName: 'Typed' });
      await search('');
      const asked: URL[] = [];
      const listen = (request: { url(): string }) => {
        const url = new URL(request.url());
        if (url.pathname === '/users') asked.push(url);
      };
      page.on('request', listen);
      await page.getByLabel('Email, circulation number or reader id').pressSequentially(email);
      await page.getByRole('link', { name: 'Typed' }).waitFor();
      page.off('request', listen);
      assert.ok(asked.length >= 1 && asked.length < email.length, `${asked.length} searches for ${email.length} keys`);
      assert.equal(asked.at(-1)?.searchParams.get('page[size]'), '20');
      assert.equal(asked.at(-1)?.searchParams.get('filter[email]'), email);
    });
  });
});
