/**
 * The console is served by the service itself: a shell with no inline script naming hashed
 * assets, all under a strict content security policy, its first screen within the JavaScript
 * budget, and rendered by a real browser with nothing fetched from elsewhere.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { CONSOLE_POLICY } from '../../src/http/routes/console.js';
import { missingChromium, screenshot, startConsole, type ConsoleRig } from '../support/console.js';
import { forEachStore } from '../support/stores.js';

/** The budget for the first screen's JavaScript, gzipped. */
const FIRST_SCREEN_BUDGET_BYTES = 150 * 1024;

/** The scripts and styles the shell names. */
function assetsOf(shell: string): { scripts: string[]; styles: string[] } {
  const scripts = [...shell.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
  const preloads = [...shell.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  const styles = [...shell.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  return { scripts: [...scripts, ...preloads], styles };
}

forEachStore((kind) => {
  describe('the console', { skip: missingChromium }, () => {
    let rig: ConsoleRig;
    before(async () => {
      rig = await startConsole(kind);
    });
    after(() => rig?.close());

    it('serves a shell without inline script under a policy with no unsafe source', async () => {
      const response = await fetch(`${rig.service.baseUrl}/console`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(response.headers.get('content-security-policy'), CONSOLE_POLICY);
      assert.doesNotMatch(CONSOLE_POLICY, /unsafe|\*|data:|https?:/);
      assert.match(CONSOLE_POLICY, /default-src 'none'/);
      assert.equal(response.headers.get('cache-control'), 'no-cache');
      const shell = await response.text();
      assert.doesNotMatch(shell, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline script');
      assert.doesNotMatch(shell, /\son[a-z]+=/i, 'an inline event handler');
      assert.doesNotMatch(shell, /<style|style=/, 'an inline style');
    });

    it('serves hashed assets for a year, under the same policy', async () => {
      const shell = await (await fetch(`${rig.service.baseUrl}/console`)).text();
      const { scripts, styles } = assetsOf(shell);
      assert.ok(scripts.length > 0 && styles.length > 0);
      for (const path of [...scripts, ...styles]) {
        assert.match(path, /^\/console\/assets\/[\w-]+-[A-Z0-9]{8}\.(js|css)$/);
        const response = await fetch(rig.service.baseUrl + path);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
        assert.equal(response.headers.get('content-security-policy'), CONSOLE_POLICY);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      }
    });

    it('answers a JSON:API 404 to an asset it does not have', async () => {
      const response = await rig.service.client.as(null).get('/console/assets/nothing-ABCDEFGH.js');
      assert.equal(response.status, 404);
      assert.equal(response.body.errors[0].code, 'ROUTE_NOT_FOUND');
    });

    it(`keeps the first screen's JavaScript under ${FIRST_SCREEN_BUDGET_BYTES / 1024} KB gzipped`, async () => {
      const shell = await (await fetch(`${rig.service.baseUrl}/console`)).text();
      let total = 0;
      for (const path of assetsOf(shell).scripts) {
        const body = Buffer.from(await (await fetch(rig.service.baseUrl + path)).arrayBuffer());
        total += gzipSync(body, { level: 9 }).length;
      }
      assert.ok(total > 0);
      assert.ok(total < FIRST_SCREEN_BUDGET_BYTES, `${total} bytes of JavaScript gzipped`);
    });

    it('renders its sign-in screen in a browser with no policy violation and nothing from elsewhere', async () => {
      const page = await rig.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') violations.push(message.text());
      });
      page.on('pageerror', (error) => violations.push(error.message));
      await page.goto(`${rig.service.baseUrl}/console`);
      await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
      await screenshot(page, `sign-in-${kind}`);
      // The one request that fails is the session check: nobody is signed in yet.
      assert.deepEqual(
        violations.filter((text) => !/401/.test(text)),
        [],
      );
      assert.deepEqual(rig.outside, []);
    });

    it('is left out of the OpenAPI document', async () => {
      const document = (await (await fetch(`${rig.service.baseUrl}/openapi.json`)).json()) as { paths: object };
      assert.deepEqual(
        Object.keys(document.paths).filter((path) => path.startsWith('/console')),
        [],
      );
    });
  });
});
