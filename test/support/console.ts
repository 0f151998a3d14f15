/**
 * The console in a real browser for the tests: the console built afresh into a directory of the
 * test file's own, a service serving it, one headless Chromium (Debian's, as the docs page test
 * runs it) shared by the file's tests, and pages that refuse every request beyond the service.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsole } from '../../console/build.mjs';
import type { AppOptions } from '../../src/http/app.js';
import { launchChromium } from './chromium.js';
import { startService, type Service } from './service.js';
import { createStaff, type TestStaff } from './staff.js';
import type { StoreKind } from './stores.js';

/** What a browser context keeps of a session: its cookies and storage. */
type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

export { missingChromium } from './chromium.js';

export const ARTIFACTS = 'test-artifacts';

export interface ConsoleRig {
  service: Service;
  browser: Browser;
  /** Every address beyond the service a page asked for (and was refused). */
  outside: string[];
  /** A page in a fresh browser context (no cookies), at the given size. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /**
   * A page in a fresh browser context holding the cookies of a staff member of `role` signed in
   * through the console's form, the first time for the rig, the one session of that role after.
   */
  signedInPage(role: 'agent' | 'admin'): Promise<Page>;
  close(): Promise<void>;
}

export async function startConsole(
  kind: StoreKind,
  options: Partial<Omit<AppOptions, 'store'>> = {},
): Promise<ConsoleRig> {
  const directory = mkdtempSync(join(tmpdir(), 'circulation-console-'));
  await buildConsole(directory);
  const service = await startService(kind, { ...options, consoleDirectory: directory });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  const outside: string[] = [];
  const newPage = async (viewport = { width: 1280, height: 800 }, storageState?: StorageState) => {
    const context = await browser.newContext({ viewport, ...(storageState && { storageState }) });
    contexts.push(context);
    return confinedPage(context, outside);
  };
  // A sign-in is a page load, a form and two password hashes: one a role, not one a test.
  const sessions = new Map<string, StorageState>();
  return {
    service,
    browser,
    outside,
    newPage: (viewport) => newPage(viewport),
    async signedInPage(role) {
      const kept = sessions.get(role);
      if (kept) return newPage(undefined, kept);
      const page = await newPage();
      await signInThroughConsole(page, service.baseUrl, await createStaff(service.client, role));
      sessions.set(role, await page.context().storageState());
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await service.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A page of the context whose requests beyond 127.0.0.1 are refused, and noted in `outside`. */
export async function confinedPage(context: BrowserContext, outside: string[]): Promise<Page> {
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    outside.push(url.href);
    return route.abort();
  });
  return context.newPage();
}

/** Signs in through the console's own form and waits for the search screen. */
export async function signInThroughConsole(page: Page, baseUrl: string, staff: TestStaff): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('Email').fill(staff.email);
  await page.getByLabel('Password').fill(staff.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Find a reader' }).waitFor();
}

/** A fresh browser context, signed in as the rig's staff of `role`, on a reader's page once `heading` shows. */
export async function openReaderAsAgent(
  rig: ConsoleRig,
  userId: string,
  heading: string,
  role: 'agent' | 'admin' = 'agent',
): Promise<Page> {
  const page = await rig.signedInPage(role);
  await page.goto(`${rig.service.baseUrl}/console#/readers/${userId}`);
  await page.getByRole('heading', { name: heading }).waitFor();
  return page;
}

/** Where the docs' screenshots of the console are; the tests write them anew when UPDATE_SCREENSHOTS=1. */
export const DOCS_SCREENSHOTS = 'docs/console';

/**
 * The whole page saved under test-artifacts/; and, when a docs picture is named and
 * UPDATE_SCREENSHOTS=1, what the window shows saved as docs/console/<readme>.png.
 */
export async function screenshot(page: Page, name: string, readme?: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `console-${name}.png`), fullPage: true });
  if (readme !== undefined && process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(DOCS_SCREENSHOTS, `${readme}.png`) });
  }
}
