/**
 * The developer portal in a real browser (Playwright over the machine's Chromium) on one
 * `npm start`, one browser for the file: a developer signs up, verifies the email with the code
 * npm start prints, signs in, creates a key, calls the API with it, sees the usage count it,
 * rolls it, revokes it (its tokens refused), and signs out; a second account sees none of the
 * first's keys and gets 404 for each of them on every portal API route. Every action by keyboard
 * alone, axe-core on every page, the CSP enforced throughout (an inline script refused, no other
 * violation), the keys page's JavaScript measured, and a screenshot of each page: written to
 * docs/portal/ for docs/portal.md with `npm run screenshots`, else to a directory of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { launchChromium, seriousViolations, tabTo } from '../support/chromium.ts';
import {
  freshStack,
  START_TIMEOUT_MS,
  type Started,
  startedStack,
  stopAll,
  waitFor,
} from '../support/local-stack.ts';

/** The most JavaScript the signed-in keys page may load, uncompressed (docs/measurements.md). */
const JS_BUDGET_BYTES = 400 * 1024;

/** docs/portal/ only when asked (`UPDATE_SCREENSHOTS=1`): every run's dates and ids differ. */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? resolve(REPOSITORY_ROOT, 'docs/portal')
  : mkdtempSync(join(tmpdir(), 'portal-screenshots-'));
const PASSWORD = 'correct horse battery staple';

let started: Started;
let apiUrl: string;
let portalUrl: string;
let portalApiUrl: string;
let browser: Browser;

beforeAll(async () => {
  const stack = await startedStack(await freshStack());
  started = stack.started;
  apiUrl = stack.url;
  [, portalUrl = ''] = await waitFor(started, /^Portal: (\S+)$/m, START_TIMEOUT_MS);
  ({ portalApiUrl } = (await (await fetch(new URL('/config.json', portalUrl))).json()) as {
    portalApiUrl: string;
  });
  browser = await launchChromium();
}, START_TIMEOUT_MS + 30_000);
afterAll(async () => {
  await browser?.close();
  await stopAll();
  if (!process.env.UPDATE_SCREENSHOTS) rmSync(SCREENSHOTS, { recursive: true, force: true });
});

/** A browser context of its own (an account's), its CSP violations and the ID token it sends. */
interface Visitor {
  readonly context: BrowserContext;
  readonly page: Page;
  /** The last `Authorization` the page sent to the portal API. */
  bearer: string;
}

async function visitor(): Promise<Visitor> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portalUrl });
  // Evaluated by the browser itself, not as a script of the page: the page's CSP is untouched.
  await context.addInitScript({
    content: `globalThis.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) =>
        globalThis.cspViolations.push(event.effectiveDirective + ' ' + event.blockedURI));`,
  });
  const page = await context.newPage();
  const self: Visitor = { context, page, bearer: '' };
  page.on('request', (request) => {
    const authorization = request.headers().authorization;
    if (request.url().startsWith(portalApiUrl) && authorization) self.bearer = authorization;
  });
  return self;
}

/**
 * axe-core finds no serious or critical violation; the page is screenshot as `name`, whole, or
 * the viewport alone for a modal dialog (whose backdrop covers the viewport only).
 */
async function checkPage(page: Page, name: string, fullPage = true): Promise<void> {
  expect(await seriousViolations(page), name).toEqual([]);
  await page.screenshot({ path: resolve(SCREENSHOTS, `${name}.png`), fullPage });
}

/** The CSP violations the page has seen since it loaded. */
const violations = (page: Page) => page.evaluate<string[]>('globalThis.cspViolations');

/** Types `text` into the control `label` names, reaching it with Tab. */
async function typeInto(page: Page, label: RegExp | string, text: string): Promise<void> {
  await tabTo(page, page.getByLabel(label));
  await page.keyboard.type(text);
}

/** Tabs to the control and presses Enter. */
async function press(page: Page, role: 'button' | 'link', name: RegExp | string): Promise<void> {
  await tabTo(page, page.getByRole(role, { name, exact: typeof name === 'string' }));
  await page.keyboard.press('Enter');
}

/** The Petstore API's answer to listPets with `authorization`. */
const listPets = (authorization: string) =>
  fetch(`${apiUrl}/pets`, { headers: { authorization } }).then((response) => response.status);

/** Signs up `email` through the provider's pages and verifies it with npm start's code. */
async function signUp({ page }: Visitor, email: string, screenshots: boolean): Promise<void> {
  await page.goto(portalUrl);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  if (screenshots) await checkPage(page, 'signed-out');
  await press(page, 'link', 'Sign up');
  await page.getByRole('button', { name: 'Sign up' }).waitFor();
  if (screenshots) await checkPage(page, 'sign-up');
  await typeInto(page, /email/i, email);
  await typeInto(page, /password/i, PASSWORD);
  await press(page, 'button', 'Sign up');
  const [, code = ''] = await waitFor(
    started,
    new RegExp(`^Verification code for ${email.replace(/[.+]/g, '\\$&')}: (\\d{6})$`, 'm'),
    10_000,
  );
  await page.getByRole('button', { name: 'Verify email' }).waitFor();
  if (screenshots) await checkPage(page, 'verify-email');
  await typeInto(page, /code/i, code);
  await press(page, 'button', 'Verify email');
  // The provider sends a verified account back to the portal, to sign in.
  await page.waitForURL(portalUrl);
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
}

/**
 * Signs in from the portal's home, where signing up left the page, through the provider's page.
 *
 * @returns The scripts the browser fetched from the redirect back to the keys page shown.
 */
async function signIn({ page }: Visitor, email: string, screenshots: boolean): Promise<Response[]> {
  await press(page, 'button', 'Sign in');
  await page.waitForURL((url) => !url.href.startsWith(portalUrl));
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  if (screenshots) await checkPage(page, 'sign-in');
  await typeInto(page, /email/i, email);
  await typeInto(page, /password/i, PASSWORD);
  const scripts: Response[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.push(response);
  });
  await press(page, 'button', 'Sign in');
  await page.getByRole('heading', { name: 'Your keys' }).waitFor();
  await page.getByText(`Signed in as ${email}`).waitFor();
  return scripts;
}

/** Every portal API route on one key id, with the ID token given: the answers' statuses and codes. */
async function everyRoute(keyId: string, bearer: string): Promise<string[]> {
  const routes: [string, string, unknown?][] = [
    ['GET', `keys/${keyId}`],
    ['GET', `keys/${keyId}/usage`],
    ['POST', `keys/${keyId}/roll`, { graceSeconds: 0 }],
    ['POST', `keys/${keyId}/revoke`],
    ['PUT', `keys/${keyId}/plan`, { plan: 'free' }],
  ];
  return Promise.all(
    routes.map(async ([method, path, body]) => {
      const response = await fetch(`${portalApiUrl}/${path}`, {
        method,
        headers: { authorization: bearer, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const { code } = (await response.json()) as { code: string };
      return `${method} ${path}: ${response.status} ${code}`;
    }),
  );
}

describe('the developer portal in Chromium', { timeout: 240_000 }, () => {
  // Each run's stack is fresh, the provider's accounts with it.
  const first = { email: 'developer@example.com', keyIds: [] as string[] };

  it('takes a developer by keyboard from sign-up to sign-out: create, call, usage, roll, revoke', async () => {
    const developer = await visitor();
    const { page } = developer;

    await signUp(developer, first.email, true);
    const scripts = await signIn(developer, first.email, true);
    const bytes = (await Promise.all(scripts.map((response) => response.body()))).reduce(
      (sum, body) => sum + body.length,
      0,
    );
    console.info(`Portal keys page: ${scripts.length} scripts, ${bytes} bytes of JavaScript`);
    expect(bytes).toBeLessThanOrEqual(JS_BUDGET_BYTES);
    expect(bytes).toBeGreaterThan(0);
    await checkPage(page, 'keys');

    // The CSP: an inline script added to the page never runs, and the browser reports it.
    await page.evaluate(`{
      const script = document.createElement('script');
      script.textContent = 'globalThis.inlineRan = true';
      document.head.append(script);
    }`);
    expect(await page.evaluate('"inlineRan" in globalThis')).toBe(false);
    expect(await violations(page)).toEqual(['script-src-elem inline']);

    await typeInto(page, 'Key name', 'CI pipeline');
    await press(page, 'button', 'Create key');
    const tokenField = page.getByLabel('Token', { exact: true });
    await tokenField.waitFor();
    const token = await tokenField.inputValue();
    expect(token).toMatch(/^pet_local_/);
    await page.getByText('This token will not be shown again.').waitFor();
    await press(page, 'button', 'Copy');
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    await checkPage(page, 'new-key');
    await press(page, 'button', 'Done');
    expect(await page.getByLabel('Token', { exact: true }).count()).toBe(0);

    expect(await listPets(`Bearer ${token}`)).toBe(200);

    await press(page, 'link', 'CI pipeline');
    await page.getByRole('heading', { name: 'CI pipeline' }).waitFor();
    first.keyIds.push(page.url().split('/').pop() ?? '');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByText(`Today (${today}): 1 admitted, 0 refused.`).waitFor();
    await expect
      .poll(() => page.getByRole('row', { name: today }).innerText())
      .toMatch(/^\S+\s+1\s+0$/);
    await checkPage(page, 'key');

    await tabTo(page, page.getByLabel('The old token keeps working for'));
    await press(page, 'button', 'Roll');
    await page.getByText(/The old token works until/).waitFor();
    const rolled = await page.getByLabel('Token', { exact: true }).inputValue();
    expect(rolled).not.toBe(token);
    await press(page, 'button', 'Done');
    // Each check a fresh Authorization value: API Gateway's cache keeps an answer up to 60 s.
    expect(await listPets(`BEARER ${token}`)).toBe(200);

    // Radio buttons are one Tab stop: the arrow keys choose among them.
    await tabTo(page, page.getByRole('radio', { name: /^Free/ }));
    await page.keyboard.press('ArrowDown');
    await press(page, 'button', 'Change plan');
    await page
      .getByText(/^Pro requested: the key moves to Pro once billing completes it/)
      .waitFor();
    await page.getByText('Free: 60 requests a minute').first().waitFor();

    await press(page, 'button', 'Revoke');
    await page.getByRole('dialog', { name: 'Revoke CI pipeline?' }).waitFor();
    await checkPage(page, 'revoke', false);
    await press(page, 'button', 'Revoke key');
    await page.getByText(/^revoked since/).waitFor();
    expect(await listPets(`bearer ${token}`)).toBe(401);
    expect(await listPets(`Bearer ${rolled}`)).toBe(401);

    // A second key stays: the other account must not see it either.
    await press(page, 'link', 'All keys');
    await typeInto(page, 'Key name', 'Staging');
    await press(page, 'button', 'Create key');
    await press(page, 'link', 'Staging');
    await page.getByRole('heading', { name: 'Staging' }).waitFor();
    first.keyIds.push(page.url().split('/').pop() ?? '');

    expect(await violations(page)).toEqual(['script-src-elem inline']);
    await press(page, 'button', 'Sign out');
    // The provider asks before it ends its session, then sends the browser back to the portal.
    await page.waitForURL((url) => !url.href.startsWith(portalUrl));
    await checkPage(page, 'sign-out');
    await press(page, 'button', 'Sign out');
    await page.waitForURL(portalUrl);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByText('Your keys').count()).toBe(0);
    await developer.context.close();
  });

  it("shows a second account none of the first account's keys, and 404 for each on every route", async () => {
    const other = await visitor();
    const email = 'another.developer@example.com';
    await signUp(other, email, false);
    await signIn(other, email, false);

    await other.page.getByText('No keys yet.').waitFor();
    for (const keyId of first.keyIds) {
      await other.page.goto(`${portalUrl}#/keys/${keyId}`);
      await other.page.getByRole('alert').getByText(`No key ${keyId}`).waitFor();
      expect(await everyRoute(keyId, other.bearer)).toEqual([
        `GET keys/${keyId}: 404 key_not_found`,
        `GET keys/${keyId}/usage: 404 key_not_found`,
        `POST keys/${keyId}/roll: 404 key_not_found`,
        `POST keys/${keyId}/revoke: 404 key_not_found`,
        `PUT keys/${keyId}/plan: 404 key_not_found`,
      ]);
    }
    expect(first.keyIds).toHaveLength(2);

    await press(other.page, 'link', 'All keys');
    await press(other.page, 'button', 'Delete account');
    await press(other.page, 'button', 'Delete my account');
    await other.page.getByText('Your account is deleted and its keys are revoked.').waitFor();
    await other.page.getByRole('button', { name: 'Sign in' }).waitFor();
    await other.context.close();
  });
});
