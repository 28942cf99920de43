// Headless Debian Chromium driven by playwright-core (no browser download: the system binary is used).
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
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

/** Fills and submits the sign-in form (the page is left wherever the server sends it). */
export async function signInWithForm(page: Page, baseUrl: string, login: string, password: string): Promise<void> {
  if (!page.url().startsWith(`${baseUrl}/auth/sign_in`)) await page.goto(`${baseUrl}/auth/sign_in`);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
}
