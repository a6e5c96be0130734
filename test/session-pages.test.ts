import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { LINK_PARAM, SessionLinks } from '../infra/session-links';
import { JobAcceptedSchema } from '../server/api/schemas';
import { runStatusQuery, stopSignal } from '../workflows/contracts';
import { startApiKit, type ApiKit } from './helpers/api-kit';
import { sharedEnvironment } from './helpers/temporal';
import { waitUntil } from './helpers/wait';

jest.setTimeout(120_000);

const SECRET = randomBytes(32).toString('hex');
/** A secret of the deployment's environment a run happens to print: the page must not show it. */
const KNOWN_SECRET = `known-${randomBytes(8).toString('hex')}`;
const GITHUB_TOKEN_SHAPE = `ghp_${'A1b2C3d4'.repeat(4)}`;

/**
 * The session pages end to end on the real server: a worker with the product bundle and scripted
 * models, the Express app with `/api/v1` and `/session` mounted from a real switchboard.yaml, and
 * Temporal as the only store.
 */
describe('session pages /session', () => {
  let api: ApiKit;
  let live: string;
  let slow: string;
  const queried: string[] = [];

  beforeAll(async () => {
    const env = await sharedEnvironment();
    // The hub's own client, so the test counts every query the pages make of the worker.
    const client = new Client({
      connection: env.connection,
      namespace: 'default',
      interceptors: {
        workflow: [
          {
            query: (input, next) => {
              queried.push(input.workflowExecution.workflowId);
              return next(input);
            },
          },
        ],
      },
    });
    api = await startApiKit('session-pages', {
      tokens: { alice: { user: 'alice' }, bob: { user: 'bob', agents: ['general'] }, carol: { user: 'carol', selfServe: true } },
      sessions: { secret: SECRET, client, env: { DEPLOY_API_TOKEN: KNOWN_SECRET } },
    });
    live = api.kit.script('live', [
      {
        text: 'Looking first. <script>alert(1)</script> [click](javascript:alert(1)) **bold**',
        toolCalls: [{ name: 'bash', input: { command: `echo line-one; echo ${GITHUB_TOKEN_SHAPE}; echo ${KNOWN_SECRET}; exit 3` } }],
        delayMs: 400,
      },
      { text: 'Counting.', toolCalls: [{ name: 'bash', input: { command: 'seq 1 5' } }], delayMs: 1_500 },
      { text: 'Almost there.', toolCalls: [{ name: 'update_status', input: { summary: 'Wrapping up' } }], delayMs: 1_500 },
      { text: 'Done: the count was **5**.', delayMs: 1_000 },
    ]);
    slow = api.kit.script('slow', [{ text: 'Thinking for a long time.', delayMs: 600_000 }]);
  });
  afterAll(() => api?.close());

  const start = async (model: string, text: string) => {
    const response = await api.call('/jobs', { as: 'alice', body: { text, model, agent: 'explore' } });
    expect(response.status).toBe(202);
    return JobAcceptedSchema.parse(await response.json());
  };
  const page = (url: string, headers: Record<string, string> = {}) => fetch(new URL(url, api.origin), { headers, redirect: 'manual' });
  const links = () => new SessionLinks(SECRET, 3_600_000, api.origin);

  it('opens with its signed link only: unsigned, expired, tampered or another workflow’s link gets 401/403 and shows nothing', async () => {
    const job = await start(live, 'count to five');
    const url = job.links.session!;
    // The API's answer carries the page's link (item 4), signed for this job.
    expect(url).toMatch(new RegExp(`^${api.origin}/session/${encodeURIComponent(job.jobId!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?k=`));
    const opened = await page(url);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await opened.text();
    expect(html).toContain('count to five');

    const path = `/session/${encodeURIComponent(job.jobId!)}`;
    const past = links().token(job.jobId!, Date.now() - 60_000);
    const other = links().token(job.threadId, Date.now() + 3_600_000);
    const good = new URL(url).searchParams.get(LINK_PARAM)!;
    const tampered = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const [query, status] of [
      ['', 401],
      [`?${LINK_PARAM}=${past}`, 401],
      [`?${LINK_PARAM}=${tampered}`, 401],
      [`?${LINK_PARAM}=nonsense`, 401],
      [`?${LINK_PARAM}=${other}`, 403],
    ] as const) {
      for (const suffix of ['', '/events']) {
        const refused = await page(`${path}${suffix}${query}`);
        expect([query, suffix, refused.status]).toEqual([query, suffix, status]);
        const body = await refused.text();
        expect(body).not.toContain('count to five');
        expect(body).not.toContain(job.jobId!);
      }
    }
  });

  it('follows a run live over server-sent events: three open pages, one watcher, one query per change', async () => {
    const job = await start(live, 'count again');
    const url = new URL(job.links.session!);
    await page(url.href);
    const watchersBefore = api.sessionHub!.size;
    const streams = await Promise.all([0, 1, 2].map(() => readUpdates(`${url.origin}${url.pathname}/events${url.search}&since=0`)));
    expect(api.sessionHub!.size).toBe(watchersBefore);
    for (const updates of streams) {
      expect(updates[updates.length - 1].event).toBe('end');
      const html = updates.map((update) => JSON.stringify(update.data)).join('\n');
      expect(html).toContain('Turn 2');
      expect(html).toContain('exit 3');
      expect(html).toContain('Done: the count was');
    }
    // The three streams saw the same versions: one render per change, fanned out.
    const versions = streams.map((updates) =>
      updates.filter((u) => u.event === 'update').map((u) => (u.data as { version: number }).version),
    );
    expect(versions[1]).toEqual(versions[0]);
    expect(versions[2]).toEqual(versions[0]);
    const changes = Math.max(...versions[0]);
    const queries = queried.filter((id) => id === job.jobId).length;
    // Once per change of the one watcher (and once when it loaded), never once per page.
    expect(queries).toBeLessThanOrEqual(changes + 1);
    expect(changes).toBeGreaterThanOrEqual(3);
  });

  it('shows hostile text as text and redacts secrets: model Markdown sanitised, tokens and known secrets blanked', async () => {
    const job = await start(live, 'show me');
    await api.kit.result(job.jobId!);
    const html = await (await page(job.links.session!)).text();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toMatch(/<script>alert/);
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('<strong>bold</strong>');
    expect(html).not.toContain(GITHUB_TOKEN_SHAPE);
    expect(html).not.toContain(KNOWN_SECRET);
    expect(html).toContain('[redacted]');
    expect(html).toContain('line-one');
    // The whole output, on its own, is redacted too.
    const whole = /href="([^"]*\/output\/[^"]*)"/.exec(html);
    if (whole) {
      const text = await (await page(whole[1].replace(/&amp;/g, '&'))).text();
      expect(text).not.toContain(GITHUB_TOKEN_SHAPE);
    }
  });

  it('opens with an API token too, as far as the access rules let it; a link alone offers no steer box', async () => {
    const job = await start(live, 'tokens');
    const path = `/session/${encodeURIComponent(job.jobId!)}`;
    const bearer = (name: string) => ({ authorization: `Bearer ${api.tokens[name]}` });
    const alice = await page(path, bearer('alice'));
    expect(alice.status).toBe(200);
    expect(await alice.text()).toContain('name="text"');
    // bob's token reaches `general` only; carol's is self-serve: neither reaches alice's explore run.
    expect((await page(path, bearer('bob'))).status).toBe(403);
    expect((await page(path, bearer('carol'))).status).toBe(403);
    expect((await page(path, { authorization: 'Bearer sbt_not-a-token' })).status).toBe(401);
    const linked = await (await page(job.links.session!)).text();
    expect(linked).not.toContain('name="text"');
    expect(linked).toContain('name="token"');
  });

  it('steers and stops through the page and the API’s door, for the person the admission allows', async () => {
    const job = await start(slow, 'take your time');
    const path = `/session/${encodeURIComponent(job.jobId!)}`;
    const origin = { origin: api.origin };
    const post = (suffix: string, body: Record<string, string>, headers: Record<string, string>) =>
      fetch(`${api.origin}${path}${suffix}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body).toString(),
      });
    await waitUntil(
      async () => (await (await page(path, { authorization: `Bearer ${api.tokens.alice}` })).text()).includes('Thinking'),
      Boolean,
    );
    // A link names nobody: it cannot steer. Bob's token may not. Alice's may.
    const signedQuery = new URL(job.links.session!).search;
    expect((await post(`/steer${signedQuery}`, { text: 'x' }, { accept: 'application/json' })).status).toBe(401);
    expect((await post('/steer', { text: 'x' }, { accept: 'application/json', authorization: `Bearer ${api.tokens.bob}` })).status).toBe(
      403,
    );
    const steered = await post(
      '/steer',
      { text: 'use the v2 API' },
      { accept: 'application/json', authorization: `Bearer ${api.tokens.alice}` },
    );
    expect(steered.status).toBe(200);
    await waitUntil(
      async () => (await (await page(path, { authorization: `Bearer ${api.tokens.alice}` })).text()).includes('use the v2 API'),
      Boolean,
    );

    // A browser signs in with the token (a cookie), and its form posts must come from a page of this server.
    const signIn = await fetch(`${api.origin}/session/sign-in?next=${encodeURIComponent(path)}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...origin },
      body: new URLSearchParams({ token: api.tokens.alice }).toString(),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    expect(signIn.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect(signIn.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
    expect((await post('/stop', { reason: 'enough' }, { cookie })).status).toBe(403);
    const stopped = await post('/stop', { reason: 'enough' }, { cookie, ...origin });
    expect(stopped.status).toBe(303);
    expect(stopped.headers.get('location')).toContain('notice=stopped');
    const record = await api.kit.result(job.jobId!);
    expect(record).toMatchObject({ outcome: 'stopped', endedBy: 'stopped by alice: enough' });
    // The page follows within a moment (its watcher saw the close in history).
    const after = await waitUntil(
      async () => (await page(path, { cookie })).text(),
      (html) => html.includes('badge warn">stopped'),
    );
    expect(after).toContain('Stop</strong> by alice');

    // Signing out is a form of this server's pages too: another site's page cannot do it.
    const signOut = (headers: Record<string, string>) =>
      fetch(`${api.origin}/session/sign-out?next=${encodeURIComponent(path)}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
        body: '',
      });
    const elsewhere = await signOut({ origin: 'https://elsewhere.example' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('set-cookie')).toBeNull();
    expect((await signOut({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const signedOut = await signOut(origin);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toContain('notice=signed_out');
    expect(signedOut.headers.get('set-cookie')).toMatch(/switchboard_session=;|Expires=Thu, 01 Jan 1970/i);
  });

  it('says which tool runs while a command runs, on a page opened while the model was still thinking', async () => {
    const model = api.kit.script('tool-phase', [
      { text: 'Checking.', toolCalls: [{ name: 'bash', input: { command: 'sleep 600' } }], delayMs: 1_500 },
      { text: 'never reached' },
    ]);
    const job = await start(model, 'wait a while');
    // Opened while the model thinks: the page's watcher is warm from then on.
    const first = await (await page(job.links.session!)).text();
    expect(first).toMatch(/Thinking|Starting/);
    await waitUntil(
      () => api.kit.client.workflow.getHandle(job.jobId!).query(runStatusQuery),
      (status) => status.phase === 'tools',
    );
    // The command's start is written to history only when it ends: the page must not wait for it.
    const running = await waitUntil(
      async () => (await page(job.links.session!)).text(),
      (html) => html.includes('Running bash'),
      30_000,
    );
    expect(running).not.toContain('badge live">Thinking');
    await api.kit.client.workflow.getHandle(job.jobId!).signal(stopSignal, { reason: 'test over', by: 'alice' });
  });

  it('shows a command’s colours and progress bars as text, never as escape characters, on the page and in its whole output', async () => {
    const model = api.kit.script('ansi', [
      {
        text: 'Testing.',
        toolCalls: [
          {
            name: 'bash',
            input: { command: "printf '\\033[1;31mFAILED\\033[0m total.test.js\\n10%%\\r55%%\\r100%% done\\n'; seq 1 400" },
          },
        ],
      },
      { text: 'Done.' },
    ]);
    const job = await start(model, 'run the tests');
    await api.kit.result(job.jobId!);
    const html = await (await page(job.links.session!)).text();
    const output = /<pre class="out"[^>]*>([\s\S]*?)<\/pre>/.exec(html)![1];
    expect(output.startsWith('FAILED total.test.js\n100% done\n1\n')).toBe(true);
    expect(html.includes(String.fromCharCode(27)) || /\[1;31m[A-Z]|&#27;|\\u001b/.test(output)).toBe(false);
    const whole = /href="([^"]*\/output\/[^"]*)"/.exec(html);
    expect(whole).not.toBeNull();
    const text = await (await page(whole![1].replace(/&amp;/g, '&'))).text();
    expect(text.startsWith('FAILED total.test.js\n100% done\n1\n2\n')).toBe(true);
    expect([...text].filter((char) => char < ' ' && char !== '\n' && char !== '\t')).toEqual([]);
  });

  it('has a page for the thread, linking its runs', async () => {
    const job = await start(live, 'the thread');
    const threadPage = await page(links().url(job.threadId));
    expect(threadPage.status).toBe(200);
    const html = await threadPage.text();
    expect(html).toContain('the thread');
    // The run is linked with a link of its own, signed with the page's own expiry.
    const runLink = new RegExp(`href="/session/${encodeURIComponent(job.jobId!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?k=[^"]+"`);
    await waitUntil(async () => (await (await page(links().url(job.threadId))).text()).match(runLink), Boolean);
  });
});

/** Reads an event stream to its end (the `end` event): each event's name and data. */
async function readUpdates(url: string): Promise<Array<{ event: string; data: unknown }>> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((chunk) => chunk.startsWith('event:'))
    .map((chunk) => {
      const event = /^event: (.*)$/m.exec(chunk)![1];
      const data = /^data: (.*)$/m.exec(chunk)?.[1];
      return { event, data: data ? (JSON.parse(data) as unknown) : undefined };
    });
}
