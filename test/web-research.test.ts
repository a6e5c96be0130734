import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AddressInfo } from 'node:net';
import { searxngProvider } from '../activities/web/search-providers';
import { startSearchServer, type SearchServer } from './emulators/search-server';
import { startRunKit, type RunKit } from './helpers/run-kit';

jest.setTimeout(120_000);

const ARTICLE = `<!doctype html><html><head><title>Pinning the scheduler | Example Docs</title></head><body>
<nav>Home · Docs · Pricing</nav>
<main><article><h1>Pinning the scheduler</h1>
<p>${'Since release 4.2 the scheduler pins each job to the worker that first claimed it, so retries reuse warm caches. '.repeat(5)}</p>
<p>Set <code>scheduler.pin: false</code> to restore the old behaviour.</p></article></main>
<footer>Example footer</footer></body></html>`;

/** A loopback "web site": the article, a redirect to another loopback port, and a hit counter. */
async function site(): Promise<{ server: Server; base: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '/');
    if (req.url === '/docs/pinning') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    if (req.url?.startsWith('/go?to=')) return void res.writeHead(302, { location: decodeURIComponent(req.url.slice(7)) }).end();
    res.writeHead(404).end('no such page');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('research with web_search and web_fetch against local wire servers', () => {
  const skillsDir = mkdtempSync(join(tmpdir(), 'switchboard-skills-'));
  let kit: RunKit;
  let search: SearchServer;
  let docs: Awaited<ReturnType<typeof site>>;
  let intranet: Awaited<ReturnType<typeof site>>;

  beforeAll(async () => {
    docs = await site();
    intranet = await site();
    search = await startSearchServer('searxng', [
      {
        title: 'Pinning the scheduler | Example Docs',
        url: `${docs.base}/docs/pinning`,
        content: 'Since release 4.2 the scheduler pins jobs.',
      },
      { title: 'Pricing', url: `${docs.base}/pricing`, content: 'Plans and prices.' },
    ]);
    mkdirSync(join(skillsDir, 'release-notes', 'templates'), { recursive: true });
    writeFileSync(
      join(skillsDir, 'release-notes', 'SKILL.md'),
      '---\nname: release-notes\ndescription: Write release notes the house way.\n---\nStart from templates/notes.md and list breaking changes first.\n',
    );
    writeFileSync(join(skillsDir, 'release-notes', 'templates', 'notes.md'), '## Breaking changes\n');
    kit = await startRunKit('web', {
      skillDirs: [skillsDir],
      web: {
        // Only the docs site is allowlisted: the intranet server stands for every loopback service.
        fetch: {
          timeoutMs: 5_000,
          maxBytes: 1_000_000,
          maxRedirects: 3,
          allowHosts: [new URL(docs.base).host],
          userAgent: 'switchboard-test',
        },
        search: searxngProvider({ url: search.url, timeoutMs: 5_000 }),
      },
    });
  });
  afterAll(async () => {
    await kit.close();
    await search.close();
    rmSync(skillsDir, { recursive: true, force: true });
    for (const s of [docs, intranet]) {
      s.server.closeAllConnections();
      await new Promise((resolve) => s.server.close(resolve));
    }
  });

  it('searches, fetches the page and answers with its source', async () => {
    const page = `${docs.base}/docs/pinning`;
    const model = kit.script('research', [
      { text: 'Searching first.', toolCalls: [{ name: 'web_search', input: { query: 'scheduler pinning release', maxResults: 3 } }] },
      { text: 'Reading the top result.', toolCalls: [{ name: 'web_fetch', input: { url: page } }] },
      {
        text: `The scheduler pins jobs since 4.2 (source: ${page}).\n\nSearch said:\n{{lastToolResult:web_search}}\n\nPage said:\n{{lastToolResult:web_fetch}}`,
      },
    ]);
    const { runId } = await kit.start('does the scheduler pin jobs?', { agent: 'research', model });
    const record = await kit.result(runId);
    expect(record.outcome).toBe('completed');
    expect(record.profile.tools).toEqual(expect.arrayContaining(['web_search', 'web_fetch']));
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['web_search', true],
      ['web_fetch', true],
    ]);
    expect(search.requests.map((request) => request.path)).toEqual(['/search?q=scheduler+pinning+release&format=json']);
    expect(docs.hits).toEqual(['/docs/pinning']);
    // The search result carries title, URL and snippet; the page arrives as Markdown of the article alone.
    expect(record.finalText).toContain(
      `1. Pinning the scheduler | Example Docs\n   ${page}\n   Since release 4.2 the scheduler pins jobs.`,
    );
    expect(record.finalText).toContain(`Source: ${page} [HTTP 200, html,`);
    expect(record.finalText).toContain('Set `scheduler.pin: false` to restore the old behaviour.');
    expect(record.finalText).not.toContain('Example footer');
    expect(record.finalText).toContain(`(source: ${page})`);
  });

  it('refuses loopback, the metadata address and a redirect to a private address, as tool errors', async () => {
    const redirect = `${docs.base}/go?to=${encodeURIComponent(`${intranet.base}/admin`)}`;
    const model = kit.script('ssrf', [
      {
        text: 'Trying three URLs.',
        toolCalls: [
          { name: 'web_fetch', input: { url: `${intranet.base}/admin` } },
          { name: 'web_fetch', input: { url: 'http://169.254.169.254/latest/meta-data/' } },
          { name: 'web_fetch', input: { url: redirect } },
        ],
      },
      { text: 'None of them: {{lastToolResult}}' },
    ]);
    const { runId } = await kit.start('read these', { agent: 'research', model });
    const record = await kit.result(runId);
    expect(record.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['web_fetch', false],
      ['web_fetch', false],
      ['web_fetch', false],
    ]);
    expect(record.toolCalls[0].error).toContain('(blocked_address)');
    expect(record.toolCalls[0].error).toContain('127.0.0.1 (loopback)');
    expect(record.toolCalls[1].error).toContain('169.254.169.254 (metadata)');
    expect(record.toolCalls[2].error).toContain(`Could not fetch ${intranet.base}/admin (blocked_address)`);
    expect(intranet.hits).toEqual([]);
    expect(docs.hits).toContain(`/go?to=${encodeURIComponent(`${intranet.base}/admin`)}`);
  });

  it('offers configured skills to a run without a workspace (files inline) and repository skills beside them in a workspace', async () => {
    const research = kit.script('skills-none', [
      { text: 'Looking for a how-to.', toolCalls: [{ name: 'list_skills', input: {} }] },
      { text: 'Loading it.', toolCalls: [{ name: 'use_skill', input: { name: 'release-notes' } }] },
      { text: 'Skills: {{lastToolResult:list_skills}}\n\nLoaded: {{lastToolResult:use_skill}}' },
    ]);
    const none = await kit.result((await kit.start('write release notes', { agent: 'research', model: research })).runId);
    expect(none.toolCalls.map((call) => call.ok)).toEqual([true, true]);
    expect(none.finalText).toContain('- release-notes: Write release notes the house way. (configured)');
    expect(none.finalText).toContain('Start from templates/notes.md and list breaking changes first.');
    expect(none.finalText).toContain('## templates/notes.md\n```\n## Breaking changes\n```');

    const coding = kit.script('skills-workspace', [
      {
        text: 'Adding a repository skill.',
        toolCalls: [
          {
            name: 'write_file',
            input: {
              path: '.switchboard/skills/check/SKILL.md',
              content: '---\nname: check\ndescription: Run the checks.\n---\nRun scripts/check.sh.\n',
            },
          },
          { name: 'write_file', input: { path: '.switchboard/skills/check/scripts/check.sh', content: 'echo ok\n' } },
        ],
      },
      { text: 'Listing.', toolCalls: [{ name: 'list_skills', input: {} }] },
      { text: 'Loading both.', toolCalls: [{ name: 'use_skill', input: { name: 'check' } }] },
      { text: 'And the configured one.', toolCalls: [{ name: 'use_skill', input: { name: 'release-notes' } }] },
      {
        text: 'Reading its template.',
        toolCalls: [{ name: 'read_file', input: { path: '/tmp/skills/release-notes/templates/notes.md' } }],
      },
      { text: 'List: {{lastToolResult:list_skills}}\n\nTemplate: {{lastToolResult:read_file}}' },
    ]);
    const ws = await kit.result((await kit.start('use the skills', { agent: 'coding', model: coding })).runId);
    expect(ws.toolCalls.map((call) => [call.name, call.ok])).toEqual([
      ['write_file', true],
      ['write_file', true],
      ['list_skills', true],
      ['use_skill', true],
      ['use_skill', true],
      ['read_file', true],
    ]);
    expect(ws.finalText).toContain('- check: Run the checks. (from the repository)');
    expect(ws.finalText).toContain('- release-notes: Write release notes the house way. (configured)');
    expect(ws.finalText).toContain('## Breaking changes');
  });
});
