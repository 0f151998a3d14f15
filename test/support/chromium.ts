/**
 * Debian's Chromium for the browser tests, driven by playwright-core (no browser download): where
 * it is, why a file cannot run without it (under CI=true a missing one fails the run), and how it
 * is launched headless on a machine whose network is closed.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const missingChromium = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
if (missingChromium && process.env.CI === 'true') throw new Error(missingChromium);

/** Headless, with the background traffic that a closed network would refuse turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
