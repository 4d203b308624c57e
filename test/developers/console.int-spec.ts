// The developer console (/console) in a real browser (Debian's chromium, headless): sign in with a developer token,
// see an app and its tool, make a test call through the form, see it in the history with its attempt, replay it.
// The console's cookie counts for /v1/apps only with the console's header (what a cross-site request cannot send).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnabledApp, httpTool } from '../support/fixtures.js';
import { type TestStack, startTestStack } from '../support/test-stack.js';
import { developerToken, projectToken } from '../support/tokens.js';
import { WebhookHandler } from '../support/webhook-handler.js';

const CHROMIUM = '/usr/bin/chromium';
let stack: TestStack;
let handler: WebhookHandler;
let browser: Browser;
let base: string;

/** The browser the test needs, installed from Debian's packages when missing (as .ci/run does). */
function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  console.log('chromium missing: installing it with apt-get (Debian package "chromium")');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-q', 'chromium'], { stdio: 'inherit', env });
}

beforeAll(async () => {
  ensureChromium();
  handler = await new WebhookHandler().start();
  stack = await startTestStack({ RETRY_TIME_SCALE: '0.001' });
  base = stack.api.baseUrl;
  browser = await puppeteer.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await handler?.stop();
});

describe('the developer console', () => {
  it('answers a sign-in page (401) without a token, and refuses a token of another role', async () => {
    const page = await fetch(`${base}/console`);
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('Sign in with your developer token');
    const project = await fetch(`${base}/console?token=${await projectToken('p1')}`, { redirect: 'manual' });
    expect(project.status).toBe(401);
    expect(project.headers.get('set-cookie')).toBeNull();
  });

  it('takes the cookie for /v1/apps only with the console header', async () => {
    const token = await developerToken('dev_console_cookie');
    const signIn = await fetch(`${base}/console?token=${token}`, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/console');
    const cookie = signIn.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const pair = cookie.split(';')[0];
    expect((await fetch(`${base}/v1/apps`, { headers: { cookie: pair } })).status).toBe(401);
    expect((await fetch(`${base}/v1/apps`, { headers: { cookie: pair, 'x-toolgate-console': '1' } })).status).toBe(200);
  });

  it('signs in, lists an app and its tool, makes a test call, shows it with its attempt, and replays it', async () => {
    const dev = await developerToken('dev_console');
    const path = '/console/hook';
    const { app } = await createEnabledApp(stack.api, dev, {
      displayName: 'Console Shop',
      tools: [httpTool({ handler_url: handler.url(path) })],
    });
    handler.secrets = [app.webhook_secret];
    handler.on(path, ({ attempt }) => (attempt === 1 ? { status: 404 } : { status: 200, body: '"found"' }));
    const limited = await stack.api.request('PATCH', `/v1/apps/${app.id}`, {
      token: dev,
      body: { delivery_limits: { max_in_flight: 2 } },
    });
    expect(limited.status).toBe(200);

    const page: Page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${base}/console?token=${dev}`);
    expect(new URL(page.url()).pathname).toBe('/console');
    await page.waitForSelector(`a[data-app="${app.id}"]`);
    expect(await page.$eval(`a[data-app="${app.id}"]`, (a) => a.textContent)).toContain('Console Shop');
    await page.click(`a[data-app="${app.id}"]`);
    await page.waitForFunction(`document.querySelector('#tools')?.textContent?.includes('find_customer')`);
    await page.waitForFunction(`document.querySelector('#app-limits')?.textContent?.includes('last held back')`);
    expect(await page.$eval('#app-limits', (el) => el.textContent)).toBe(
      'Delivery limits: 2 in flight, no rate; last held back: never (30 days).',
    );

    await page.click('#test-arguments', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.type('#test-arguments', '{"customer_id": "c7"}');
    await page.click('#test-form button[type="submit"]');
    await page.waitForFunction(`document.querySelector('#test-answer')?.textContent?.includes('"failed"')`);
    const answer = JSON.parse((await page.$eval('#test-answer', (el) => el.textContent)) ?? '{}');
    expect(answer).toMatchObject({ status: 'failed', error: { http_status: 404 } });
    await page.waitForSelector(`tr[data-call="${answer.call_id}"]`);
    expect(await page.$eval(`tr[data-call="${answer.call_id}"]`, (tr) => tr.textContent)).toMatch(/test/);
    await page.waitForFunction(`document.querySelector('#attempts')?.textContent?.includes('http_status')`);
    expect(await page.$eval('#attempts', (el) => el.textContent)).toContain('404');

    await page.click('#replay');
    // Re-opened until the worker's attempt of the new round is on record.
    await page.waitForFunction(
      `(document.querySelector('tr[data-call="${answer.call_id}"]')?.click(), ` +
        `document.querySelector('#call-summary')?.textContent?.includes('succeeded'))`,
      { polling: 300, timeout: 20_000 },
    );
    expect(await page.$$eval('#attempts tr', (rows) => rows.length)).toBe(2);
    expect(handler.at(path)).toHaveLength(2);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
