/**
 * Signing in to the console and out of it, in a real browser, and what guards the session: the
 * cookie's flags, no API call without it, no change from another site, and a sign-out or a
 * disabled account that ends the session for every browser holding it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page, Request } from 'playwright-core';
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

/** The console's own calls to the API (everything but its shell and assets). */
function recordApiCalls(page: Page): Request[] {
  const calls: Request[] = [];
  page.on('request', (request) => {
    if (!new URL(request.url()).pathname.startsWith('/console')) calls.push(request);
  });
  return calls;
}

forEachStore((kind) => {
  describe('console sessions', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    before(async () => {
      rig = await startConsole(kind);
    });
    after(() => rig?.close());

    it('signs in with email and password, keeps the session across a reload, and signs out', async () => {
      const staff = await createStaff(rig.service.client, 'agent', 'Ada Agent');
      const page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, staff);
      await page.getByText('Ada Agent (agent)').waitFor();
      await screenshot(page, `signed-in-${kind}`);
      await page.reload();
      await page.getByRole('heading', { name: 'Find a reader' }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      const after = await page.request.get(`${rig.service.baseUrl}/staff-sessions/current`);
      assert.equal(after.status(), 401);
    });

    it("shows the API's message when the password is wrong, and stays signed out", async () => {
      const staff = await createStaff(rig.service.client, 'agent');
      const page = await rig.newPage();
      await page.goto(`${rig.service.baseUrl}/console`);
      await page.getByLabel('Email').fill(staff.email);
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /email|password/i })
        .waitFor();
      assert.deepEqual(await page.context().cookies(), []);
    });

    it('sets the session and known-device cookies HttpOnly, SameSite=Strict, for the whole site, out of scripts’ reach', async () => {
      const page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, await createStaff(rig.service.client, 'agent'));
      const cookies = await page.context().cookies();
      assert.deepEqual(cookies.map((c) => c.name).sort(), ['circulation_device', 'circulation_session']);
      const cookie = cookies.find((c) => c.name === 'circulation_session');
      const device = cookies.find((c) => c.name === 'circulation_device');
      assert.deepEqual([device?.httpOnly, device?.sameSite, device?.path], [true, 'Strict', '/']);
      assert.ok((device?.expires ?? 0) > Date.now() / 1000 + 89 * 86_400, 'the device is known for 90 days');
      assert.equal(cookie?.httpOnly, true);
      assert.equal(cookie?.sameSite, 'Strict');
      assert.equal(cookie?.path, '/');
      assert.equal(cookie?.secure, false, 'Secure (and __Host-) only over https');
      assert.equal(cookie?.expires, -1, 'a session cookie, gone with the browser');
      assert.equal(await page.evaluate('document.cookie'), '');
    });

    it('answers 401 to every API call the console made, when made without the session cookie', async () => {
      const userId = await createUser(rig.service.client, { circulationNumber: 'C-401' });
      const page = await rig.newPage();
      const calls = recordApiCalls(page);
      await signInThroughConsole(page, rig.service.baseUrl, await createStaff(rig.service.client, 'agent'));
      await page.getByLabel(/email, circulation number/).fill(userId);
      await page.getByRole('link').filter({ hasText: 'Reader' }).first().click();
      await page.getByRole('heading', { name: 'Subscriptions' }).waitFor();
      await page.getByLabel('Telephone').fill('+44 20 7946 0401');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText('Saved.').waitFor();
      const made = calls.filter((c) => !(c.method() === 'POST' && c.url().endsWith('/staff-sessions')));
      const paths = new Set(made.map((c) => `${c.method()} ${new URL(c.url()).pathname}`));
      for (const route of [
        'GET /users',
        `GET /users/${userId}`,
        `GET /users/${userId}/access`,
        `PATCH /users/${userId}`,
        'GET /products',
      ]) {
        assert.ok(paths.has(route), `the console did not call ${route}: ${[...paths].join(', ')}`);
      }
      for (const call of made) {
        const response = await fetch(call.url(), {
          method: call.method(),
          headers: { accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' },
          body: call.postData() ?? undefined,
        });
        assert.equal(response.status, 401, `${call.method()} ${call.url()}`);
      }
    });

    it('refuses a form posted to the API from another site, and nothing is written', async () => {
      const page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, await createStaff(rig.service.client, 'agent'));
      const before = await rig.service.snapshot();
      const evil = 'http://attacker.example/';
      await page.context().route(evil, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body:
            `<form method="POST" enctype="text/plain" action="${rig.service.baseUrl}/users">` +
            `<input name='{"data":{"type":"users","attributes":{"email":"evil@example.com","familyName":"E","x":"' value='"}}}'>` +
            `</form><script>document.forms[0].submit()</script>`,
        }),
      );
      const answered = page.waitForResponse((r) => r.url() === `${rig.service.baseUrl}/users`);
      await page.goto(evil);
      const response = await answered;
      assert.ok([401, 403].includes(response.status()), `answered ${response.status()}`);
      assert.equal((await response.request().allHeaders()).cookie, undefined, 'the cookie went along');
      assert.equal(await rig.service.snapshot(), before);
    });

    it("refuses a disabled staff member's open session on its next request", async () => {
      const staff = await createStaff(rig.service.client, 'agent');
      const userId = await createUser(rig.service.client);
      const page = await rig.newPage();
      await signInThroughConsole(page, rig.service.baseUrl, staff);
      const disabled = await rig.service.client.patch(`/staff/${staff.id}`, {
        data: { type: 'staff', id: staff.id, attributes: { disabled: true } },
      });
      assert.equal(disabled.status, 200, disabled.text);
      const refused = page.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/users'));
      await page.getByLabel(/email, circulation number/).fill(userId);
      assert.equal((await refused).status(), 401);
      await page.getByText('Your session has ended: sign in again.').waitFor();
    });

    it('signs out the session in another browser context holding it too', async () => {
      const staff = await createStaff(rig.service.client, 'agent');
      const first = await rig.newPage();
      await signInThroughConsole(first, rig.service.baseUrl, staff);
      const second = await rig.newPage();
      await second.context().addCookies(await first.context().cookies());
      await second.goto(`${rig.service.baseUrl}/console`);
      await second.getByRole('heading', { name: 'Find a reader' }).waitFor();
      await first.getByRole('button', { name: 'Sign out' }).click();
      await first.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      await second.reload();
      await second.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      assert.equal((await second.request.get(`${rig.service.baseUrl}/staff-sessions/current`)).status(), 401);
    });
  });
});
