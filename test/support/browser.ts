/**
 * A real browser for tests: Debian's `chromium` (`apt-get install chromium`), driven by
 * playwright-core — never a downloaded browser. Without it, browser tests skip with a line
 * saying why, except under CI=true, where a missing browser is a failure.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export class BrowserUnavailableError extends Error {
  override name = 'BrowserUnavailableError';
}

export async function browserForTests(what: string): Promise<Browser | null> {
  if (!existsSync(CHROMIUM_PATH)) {
    const why = `${CHROMIUM_PATH} not found (apt-get install chromium)`;
    if (process.env.CI === 'true') throw new BrowserUnavailableError(`${what}: ${why}; CI=true requires the browser tests to run`);
    console.log(`SKIP ${what}: ${why}`);
    return null;
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS], headless: true });
}
