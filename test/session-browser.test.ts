import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import { hashToken, newToken } from '../infra/api-tokens';
import { startDemo, type Demo } from '../emulators/demo/demo';
import { DEMO, fullRepoName } from '../emulators/demo/session';
import { axeViolations, launchChromium, type Browser } from './helpers/browser';
import { testTemporalAddress, uniqueTaskQueue } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(240_000);

/** The page's document, in the functions Playwright runs there (this file compiles without the DOM's types). */
interface PageDocument {
  body: { dataset: Record<string, string>; innerText: string };
  querySelector(selector: string): unknown;
  getElementById(id: string): { textContent: string | null } | null;
}

/** Where the screenshots go: SESSION_SCREENSHOTS, else a fresh temp folder (printed). */
const SHOTS = process.env.SESSION_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'session-screens-'));

/**
 * The session pages in real headless Chromium, on the offline demo played on the suite's
 * Temporal: the unit's page while it runs and after it settles (live, without reloading), a
 * coding run's page with its diff, the local Slack's card link into it, a phone-sized view, and
 * axe-core's accessibility checks (no serious or critical violation).
 */
describe('session pages in Chromium, on the demo', () => {
  let demo: Demo | undefined;
  let browser: Browser | undefined;
  const ana = newToken();

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo({
      temporalAddress: testTemporalAddress(),
      taskQueue: uniqueTaskQueue('session-browser'),
      // Ana's API token (her Slack id is who asked): she may stop her unit from its page.
      env: { SWITCHBOARD_API_TOKENS: JSON.stringify([{ id: 'ana-laptop', sha256: hashToken(ana), user: DEMO.person.id }]) },
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  const shot = async (page: Page, name: string, fullPage = true) => {
    const path = join(SHOTS, `${name}.png`);
    await page.screenshot({ path, fullPage });
    console.log(`screenshot: ${path}`);
  };
  const expectAccessible = async (page: Page) => {
    const violations = await axeViolations(page);
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  };

  it('shows the unit running, follows it live to merged, and passes axe-core', async () => {
    const unit = await waitUntil(async () => demo!.workflows.find((workflow) => workflow.kind === 'unit'), Boolean, 60_000);
    const page = await browser!.context.newPage();
    await page.goto(demo!.sessionUrl(unit!.workflowId));
    await page.waitForSelector('.badge.live');
    expect(await page.title()).toMatch(/^Ship unit/);
    // Who asked, by name (the Slack door reads it with users.info), not by Slack id.
    const facts = await page.innerText('#header-body');
    expect(facts).toMatch(new RegExp(`Requester\\s+${DEMO.person.name} \\(slack\\)`));
    expect(facts).not.toContain(DEMO.person.id);
    // A round shows: pushed live while the unit runs, or there at once when a loaded machine opened
    // the page after the unit had done its rounds and waits for people (then nothing moves until
    // the merge below, whose live update the page must show without a reload).
    await page.waitForFunction(
      () => Boolean((globalThis as unknown as { document: PageDocument }).document.querySelector('#rounds .round')),
      undefined,
      { timeout: 60_000 },
    );
    await shot(page, 'unit-running');
    await expectAccessible(page);

    // A link names nobody; Ana signs in with her API token and the page offers her the steer box and Stop.
    expect(await page.locator('textarea[name="text"]').count()).toBe(0);
    await page.fill('input[name="token"]', ana);
    await Promise.all([page.waitForURL(/notice=signed_in/), page.click('button:has-text("Sign in")')]);
    expect(await page.innerText('#notice')).toBe('Signed in.');
    expect(await page.innerText('.crumbs')).toContain(`opened with ${DEMO.person.id} (API token ana-laptop)`);
    await page.locator('textarea[name="text"]').waitFor();
    expect(await page.locator('button.danger', { hasText: 'Stop' }).count()).toBe(1);
    await expectAccessible(page);

    // Signing out is a form post of the page's own origin (the server refuses one from elsewhere): the view goes back to the link's.
    await Promise.all([page.waitForURL(/notice=signed_out/), page.click('button:has-text("Sign out")')]);
    expect(await page.innerText('#notice')).toBe('Signed out.');
    expect(await page.locator('textarea[name="text"]').count()).toBe(0);
    await shot(page, 'signed-out');

    // Ana merges the ready PR on GitHub; the unit settles merged, and the open page says so by itself.
    const ready = await demo!.ready(150_000);
    const merged = await fetch(`${demo!.github.apiUrl}/repos/${fullRepoName}/pulls/${ready.pullRequest}/merge`, {
      method: 'PUT',
      headers: { authorization: `token ${demo!.maintainerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sha: ready.headSha }),
    });
    expect(merged.status).toBe(200);
    await page.waitForSelector('.state .badge.good', { timeout: 60_000 });
    await page.waitForFunction(() =>
      ((globalThis as unknown as { document: PageDocument }).document.getElementById('live')?.textContent ?? '').startsWith('finished'),
    );
    const text = await page.innerText('main');
    expect(await page.innerText('.state')).toContain('merged');
    expect(text).toContain('Round 2');
    expect(text).toContain('A discount above 100% makes the total negative');
    expect(text).toContain('Changes against the base');
    await shot(page, 'unit-finished');
    await expectAccessible(page);

    // The same page on a phone: one column, nothing wider than the screen.
    const phone = await browser!.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(demo!.sessionUrl(unit!.workflowId));
    expect(await phone.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot(phone, 'unit-finished-phone', false);
    await phone.close();
    await page.close();
  });

  it('opens a coding run from the local Slack card, with its turns, commands and diff', async () => {
    const slack = await browser!.context.newPage();
    await slack.goto(demo!.slackPageUrl);
    const link = slack.locator('a', { hasText: 'Open session' }).first();
    await link.waitFor();
    expect(await link.getAttribute('href')).toMatch(new RegExp(`^${demo!.appUrl}/session/run%3A|^${demo!.appUrl}/session/unit%3A`));
    await shot(slack, 'local-slack-card');
    const href = (await link.getAttribute('href'))!;
    const run = await browser!.context.newPage();
    await run.goto(href);
    expect(await run.title()).toMatch(/^Coding run/);
    const text = await run.innerText('main');
    expect(text).toContain('Turn 1');
    expect(text).toMatch(/exit \d/);
    expect(text).toContain('Changes against the base');
    // Its checklist (update_status), as it ended: every step done (issue 33).
    expect(await run.innerText('.steps')).toMatch(
      /^Steps\s+3 of 3 steps done\s+✔ Reproduce the failure done\s+✔ Fix total\(\) done\s+✔ Run the tests and commit done$/,
    );
    // The local Slack's card shows the same checklist.
    expect(await slack.innerText('body')).toContain('Run the tests and commit');
    // Open the first command, as a reader would: its command, exit code, duration and output.
    await run
      .locator('details.call', { has: run.locator('.tool', { hasText: /^bash$/ }) })
      .first()
      .locator('summary')
      .click();
    expect(await run.locator('details.call[open] pre.out').count()).toBe(1);
    await shot(run, 'coding-run');
    await expectAccessible(run);
    await run.close();
    await slack.close();
  });
});
