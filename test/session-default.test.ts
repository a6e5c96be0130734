import { statSync } from 'node:fs';
import { join } from 'node:path';
import { hashToken, newToken } from '../infra/api-tokens';
import { runCli } from './helpers/cli';
import { startTracedProduct, TRACED_CHANNEL, type TracedProduct } from './helpers/traced-product';

jest.setTimeout(180_000);

/**
 * Session pages on by default: `npm start`'s process with no SWITCHBOARD_SESSION_SECRET makes a
 * key once in its data dir (0600), and every card and API answer carries a signed link that
 * opens its page; `switchboard session <id>` signs one with the same key.
 */
describe('session pages in a default start', () => {
  let product: TracedProduct;
  const token = newToken();

  beforeAll(async () => {
    product = await startTracedProduct('session-default', {
      // No traces here, and no session secret: the defaults.
      otel: { OTEL_SDK_DISABLED: 'true' },
      env: { SWITCHBOARD_API_TOKENS: JSON.stringify([{ id: 'alice', sha256: hashToken(token), user: 'U0ALICE' }]) },
    });
  });
  afterAll(async () => product?.close());

  it('signs with a key it made once; cards, API answers and the CLI carry links that open their pages', async () => {
    const keyFile = join(product.dataDir, 'session.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(product.product.output()).toContain('Session page links are signed with the data dir key');

    // The card in Slack.
    const asked = await product.say('model:scripted:examples/hello.yaml say hello');
    await product.answer(asked.ts, 'Hello from Switchboard');
    const card = product.slack.state
      .thread(TRACED_CHANNEL, asked.ts)
      .find((message) => message.metadata?.event_type === 'switchboard_card')!;
    const cardLink = /<(http:\/\/127\.0\.0\.1:\d+\/session\/[^|>]+)\|Open session>/.exec(
      JSON.stringify(card.blocks).replace(/\\\//g, '/'),
    )?.[1];
    expect(cardLink).toBeDefined();
    const page = await fetch(cardLink!.replace(/&amp;/g, '&'));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('run:thread:slack:');

    // The API's answer.
    const job = await fetch(`${product.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'say hello', model: 'scripted:examples/hello.yaml' }),
    });
    expect(job.status).toBe(202);
    const { jobId, links } = (await job.json()) as { jobId: string; links: { session?: string } };
    expect(links.session).toMatch(new RegExp(`^${product.url}/session/`));
    expect((await fetch(links.session!)).status).toBe(200);

    // The operator's command, with the same key from the same data dir.
    const cli = await runCli({ dir: join(product.dataDir, '..'), taskQueue: product.taskQueue }, ['session', jobId], {
      SWITCHBOARD_DATA_DIR: product.dataDir,
      PORT: new URL(product.url).port,
    });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);
    expect((await fetch(cli.stdout.trim())).status).toBe(200);
    const missing = await runCli({ dir: join(product.dataDir, '..'), taskQueue: product.taskQueue }, ['session', 'run:no-such-workflow'], {
      SWITCHBOARD_DATA_DIR: product.dataDir,
    });
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr.trim()).toBe('no workflow run:no-such-workflow in namespace default');
  });
});
