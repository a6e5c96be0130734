import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderCard } from '../activities/slack/card-blocks';
import { startLocalSlack, type LocalSlack } from '../emulators/local-slack';
import type { RunStatus } from '../workflows/contracts';
import { axeViolations, launchChromium, type Browser } from './helpers/browser';

jest.setTimeout(120_000);

/** Where the screenshots go: SESSION_SCREENSHOTS, else a fresh temp folder (printed). */
const SHOTS = process.env.SESSION_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'local-slack-screens-'));

/**
 * The local Slack's read-only page (what `npm run demo` prints first) in headless Chromium: a
 * channel with people of every name (their avatars' colours), the app's live card with its
 * buttons, a thread with a code block and a file, on a desktop and on a phone: axe-core finds
 * no serious or critical violation, and on a phone nothing is wider than the screen.
 */
describe('the local Slack page in Chromium', () => {
  let slack: LocalSlack;
  let browser: Browser;
  const people = ['ana', 'bob', 'cara', 'dmitri', 'eve', 'farah', 'gus', 'hiro', 'ines', 'jo', 'kemal', 'lena', 'yusuf', 'zoe'];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    slack = await startLocalSlack({
      botToken: 'xoxb-page',
      channels: { C0DEV: 'dev' },
      users: people.map((name, index) => ({ id: `U0${index}`, name })),
    });
    const status: RunStatus = {
      runId: 'run:t:1',
      agent: 'coding',
      model: 'scripted:demo/session.yaml',
      phase: 'tools',
      turns: 2,
      turnGuard: 360,
      tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
      cost: { usd: 0, searches: 0, searchUsd: 0, unpriced: [] },
      elapsedMs: 65_000,
      budget: { minutes: 60, boundedBy: 'agent', description: '60 min (preset)' },
      statusText: 'Fixing total() in src/a-rather-long-path/with/many/folders/total.js',
    };
    const card = renderCard({ status, final: false, sessionUrl: 'http://127.0.0.1:3000/session/run%3At%3A1?k=signed' });
    for (const [index, name] of people.entries()) {
      const root = slack.state.add({ channel: 'C0DEV', user: `U0${index}`, text: `<@U0SWITCHBOARD> hello from ${name}` });
      if (index === 0) {
        slack.state.add({
          channel: 'C0DEV',
          user: 'U0SWITCHBOARD',
          bot_id: 'B0SWITCHBOARD',
          text: card.text,
          thread_ts: root.ts,
          blocks: card.blocks,
        });
        slack.state.add({
          channel: 'C0DEV',
          user: 'U00',
          thread_ts: root.ts,
          text: 'Here is the log:\n```\nnpm test -- --runInBand --verbose src/a-rather-long-path/with/many/folders/total.test.js\n```',
        });
      }
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await slack?.close();
  });

  for (const [label, viewport] of [
    ['desktop', { width: 1100, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`on a ${label}: no serious or critical accessibility violation${label === 'phone' ? ', nothing wider than the screen' : ''}`, async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize(viewport);
      await page.goto(slack.url);
      await page.waitForSelector('.message');
      const path = join(SHOTS, `local-slack-${label}.png`);
      await page.screenshot({ path, fullPage: false });
      console.log(`screenshot: ${path}`);
      const violations = await axeViolations(page);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      if (label === 'phone') {
        // A phone's browser lays the page out at its own width only when the page says it may.
        expect(await page.getAttribute('meta[name="viewport"]', 'content')).toBe('width=device-width, initial-scale=1');
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      }
      await page.close();
    });
  }
});
