/**
 * Finding a reader from the console's one search box (GET /users?filter[q]=…): by the start of an
 * email, a family or a given name (without regard to case or accents), by circulation number or
 * id, searched once typing pauses, 20 at a time, each result a link to the reader's page; text
 * the service refuses is answered with its own words, and text that finds nobody says so. A name
 * is found as a caller says it (both names in either order, without apostrophes or special
 * letters, one typo off), and each result shows the reader's postal code, town and whether they
 * have an active subscription.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createSubscription, createUser, uniqueEmail } from '../support/fixtures.js';
import { missingChromium, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

forEachStore((kind) => {
  describe('finding a reader', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    let page: Page;
    before(async () => {
      rig = await startConsole(kind);
      page = await rig.signedInPage('agent');
    });
    after(() => rig?.close());

    const search = (text: string) => page.getByLabel('Name, email, circulation number or reader id').fill(text);

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

    it('keeps the search in the address, so that Back from a reader and a reload show it again', async () => {
      const familyName = `Backward${kind}`;
      const id = await createUser(rig.service.client, { givenName: 'Bea', familyName });
      await search(familyName.toLowerCase());
      await page.getByRole('link', { name: `Bea ${familyName}` }).click();
      await page.getByRole('heading', { name: `Bea ${familyName}` }).waitFor();
      assert.equal(new URL(page.url()).hash, `#/readers/${id}`);
      await page.goBack();
      await page.getByRole('link', { name: `Bea ${familyName}` }).waitFor();
      const box = page.getByLabel('Name, email, circulation number or reader id');
      assert.equal(await box.inputValue(), familyName.toLowerCase());
      assert.equal(new URL(page.url()).hash, `#/?q=${familyName.toLowerCase()}`);
      await page.reload();
      await page.getByRole('link', { name: `Bea ${familyName}` }).waitFor();
      assert.equal(await box.inputValue(), familyName.toLowerCase());
    });

    it('finds "Müller" when "muller" is typed, without regard to case or accents', async () => {
      await createUser(rig.service.client, { givenName: 'Jürgen', familyName: 'Müller' });
      await createUser(rig.service.client, { givenName: 'Anna', familyName: 'MULLER' });
      await createUser(rig.service.client, { givenName: 'Lena', familyName: 'Müllerová' });
      await search('muller');
      await page.getByRole('link', { name: 'Jürgen Müller' }).waitFor();
      await page.getByRole('link', { name: 'Anna MULLER' }).waitFor();
      await page.getByRole('link', { name: 'Lena Müllerová' }).waitFor();
      await screenshot(page, `search-muller-${kind}`);
    });

    it('finds a reader by the start of their email', async () => {
      const email = uniqueEmail(`start-${kind.toLowerCase()}.example.com`);
      await createUser(rig.service.client, { email, givenName: 'Stella', familyName: 'Start' });
      await search(email.slice(0, email.indexOf('@') + 3));
      await page.getByRole('link', { name: 'Stella Start' }).waitFor();
    });

    it('finds a reader by given name', async () => {
      await createUser(rig.service.client, { givenName: `Gwendolyn${kind}`, familyName: 'Given' });
      await search(`gwendolyn${kind}`);
      await page.getByRole('link', { name: `Gwendolyn${kind} Given` }).waitFor();
    });

    it("shows the service's own message for an over-long search instead of finding nobody", async () => {
      const text = 'a'.repeat(255);
      const answer = await rig.service.client.get(`/users?filter[q]=${text}`);
      assert.equal(answer.status, 400, answer.text);
      const [error] = answer.body.errors;
      assert.equal(error.source.parameter, 'filter[q]');
      await search(text);
      await page.locator('#search-error').getByText(error.detail).waitFor();
      assert.equal(await page.getByText('No reader found.').count(), 0);
      assert.equal(
        await page.getByLabel('Name, email, circulation number or reader id').getAttribute('aria-describedby'),
        'search-error search-hint',
      );
    });

    for (const text of [`%_*'";--`, '.*[']) {
      it(`finds nobody for ${text} and says so, the characters taken as they are`, async () => {
        await createUser(rig.service.client, { givenName: 'Meta', familyName: 'Characters' });
        await search('Meta');
        await page.getByRole('link', { name: 'Meta Characters' }).first().waitFor();
        await search(text);
        await page.getByText('No reader found.').waitFor();
        assert.equal(await page.locator('.results li').count(), 0);
      });
    }

    describe('as a caller says the name', () => {
      let priya: string;
      before(async () => {
        priya = await createUser(rig.service.client, {
          givenName: 'Priya',
          familyName: 'Núñez',
          address: { streetAddress: 'Calle Mayor 1', postalCode: '28013', addressLocality: 'Madrid' },
        });
        await createSubscription(rig.service.client, priya, {
          dateStarted: '2020-01-01T00:00:00+00:00',
          dateEnded: null,
        });
        await createUser(rig.service.client, { givenName: 'Priya', familyName: 'Patel' });
        await createUser(rig.service.client, { givenName: 'Seán', familyName: "O'Brien" });
        await createUser(rig.service.client, { givenName: 'Martin', familyName: 'Ødegaard' });
        await createUser(rig.service.client, { givenName: 'Jan', familyName: 'Łęcki' });
      });

      const finds = async (text: string, name: string) => {
        await search(text);
        await page.getByRole('link', { name, exact: true }).waitFor();
      };

      it('tells agents they may type a name as the caller says it', async () => {
        const hint = page.locator('#search-hint');
        assert.match((await hint.textContent()) ?? '', /as the caller says it/);
        assert.match(
          (await page.getByLabel('Name, email, circulation number or reader id').getAttribute('aria-describedby')) ??
            '',
          /search-hint/,
        );
      });

      for (const text of ['priya nunez', 'nunez priya', 'nunes']) {
        it(`finds Priya Núñez from "${text}"`, async () => {
          await finds(text, 'Priya Núñez');
          if (text !== 'nunes') assert.equal(await page.locator('.results li').count(), 1);
        });
      }

      for (const [text, name] of [
        ['obrien', "Seán O'Brien"],
        ['odegaard', 'Martin Ødegaard'],
        ['lecki', 'Jan Łęcki'],
      ] as const) {
        it(`finds ${name} from "${text}"`, async () => {
          await finds(text, name);
        });
      }

      it('shows the postal code, the town and whether the reader has an active subscription', async () => {
        await finds('priya', 'Priya Núñez');
        const found = page.locator('.results li', { has: page.getByRole('link', { name: 'Priya Núñez' }) });
        assert.match((await found.textContent()) ?? '', /28013 Madrid/);
        await found.locator('.status-active', { hasText: 'active' }).waitFor();
        const other = page.locator('.results li', { has: page.getByRole('link', { name: 'Priya Patel' }) });
        assert.equal(await other.locator('.status-active').count(), 0);
        await screenshot(page, `search-caller-${kind}`, kind === 'SQLite' ? 'search' : undefined);
      });
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
      await page.getByLabel('Name, email, circulation number or reader id').pressSequentially(email);
      await page.getByRole('link', { name: 'Typed' }).waitFor();
      page.off('request', listen);
      assert.ok(asked.length >= 1 && asked.length < email.length, `${asked.length} searches for ${email.length} keys`);
      assert.equal(asked.at(-1)?.searchParams.get('page[size]'), '20');
      assert.equal(asked.at(-1)?.searchParams.get('filter[q]'), email);
    });
  });
});
