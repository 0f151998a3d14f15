/**
 * The documentation page in a real browser (headless Chromium): it renders every endpoint of the
 * OpenAPI document from assets the service serves itself, with no request leaving the machine.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, missingChromium } from '../../support/chromium.js';
import { startService, type Service } from '../../support/service.js';

describe('the documentation page', { skip: missingChromium }, () => {
  let service: Service;
  let browser: Browser;
  before(async () => {
    service = await startService('SQLite');
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await service?.close();
  });

  it('lists every endpoint, from local assets only, and is saved as a screenshot', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } });
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1') return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    await page.goto(`${service.baseUrl}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const shown = await page.$$eval('.opblock-summary', (blocks) =>
      blocks.map((b) => {
        const method = b.querySelector('.opblock-summary-method')?.textContent ?? '';
        const path = b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.trim()} ${path.trim()}`;
      }),
    );
    const document = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as { paths: object };
    for (const [path, methods] of Object.entries(document.paths as Record<string, object>)) {
      // `parameters` is the path's own: those all its operations take.
      for (const method of Object.keys(methods).filter((key) => key !== 'parameters')) {
        assert.ok(
          shown.includes(`${method.toUpperCase()} ${path}`),
          `${method.toUpperCase()} ${path} is not on the page`,
        );
      }
    }
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/docs.png', fullPage: false });
    assert.deepEqual(outside, [], 'the page asked for something beyond the service');
  });
});
