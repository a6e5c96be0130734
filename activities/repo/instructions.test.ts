import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { createGitHubIdentities } from '../github/identity';
import { requireBubblewrap, sandboxFixture } from '../sandbox/test-support';
import { boundInstructions, createInstructionsActivities, findInstructionFiles, MAX_INSTRUCTIONS_TOTAL } from './instructions';

const FILES = {
  'AGENTS.md': 'Root: run npm test before committing.',
  'CLAUDE.md': 'Claude: prefer small commits.',
  '.github/copilot-instructions.md': 'Copilot: use TypeScript strict mode.',
  '.switchboard/instructions.md': 'Switchboard: never touch vendor/.',
  'src/billing/AGENTS.md': 'Billing: money is kept in cents.',
  'src/billing/total.js': 'module.exports = 1;\n',
  'src/other/x.js': 'x\n',
};

describe('which instruction files a run reads', () => {
  it('takes the AGENTS.md nearest each path in play first, then the root files in their order', async () => {
    const present = new Set(['AGENTS.md', 'src/AGENTS.md', 'src/billing/AGENTS.md', 'CLAUDE.md', '.switchboard/instructions.md']);
    const asked: string[] = [];
    const found = await findInstructionFiles(['src/billing/deep/total.js', 'src/other/x.js', 'README.md'], async (path) => {
      asked.push(path);
      return present.has(path);
    });
    expect(found).toEqual(['src/billing/AGENTS.md', 'src/AGENTS.md', 'AGENTS.md', 'CLAUDE.md', '.switchboard/instructions.md']);
    // Deepest folder first; a path stops at its nearest one, so the root is not asked twice.
    expect(asked.slice(0, 4)).toEqual(['src/billing/deep/AGENTS.md', 'src/billing/AGENTS.md', 'src/other/AGENTS.md', 'src/AGENTS.md']);
  });

  it('bounds each file and all of them together', () => {
    const big = 'x'.repeat(20_000);
    const { files, skipped } = boundInstructions([
      { path: 'a/AGENTS.md', text: big },
      { path: 'AGENTS.md', text: big },
      { path: 'CLAUDE.md', text: 'small' },
      { path: 'empty.md', text: '  \n' },
    ]);
    expect(files.map((file) => [file.path, file.text.length, file.cut ?? false])).toEqual([
      ['a/AGENTS.md', 16_000, true],
      ['AGENTS.md', 16_000, true],
    ]);
    expect(files.reduce((sum, file) => sum + file.text.length, 0)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_TOTAL);
    expect(skipped).toEqual([{ path: 'CLAUDE.md', why: expect.stringContaining('limit') }]);
  });
});

describe('loadInstructions', () => {
  let github: LocalGitHub;
  let fixture: Awaited<ReturnType<typeof sandboxFixture>>;
  beforeAll(async () => {
    await requireBubblewrap();
    github = await startLocalGitHub({ tokens: { read: ['read'], write: ['write'] } });
    github.createRepo('acme', 'rules', FILES);
    fixture = await sandboxFixture();
  });
  afterAll(async () => {
    await fixture?.cleanup();
    await github?.close();
  });
  const activities = () =>
    createInstructionsActivities({
      sandboxHost: fixture.host,
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { read: 'read' } }),
    });

  it('reads them through the contents API with the read identity when there is no checkout, from a pull request’s paths', async () => {
    github.commit('acme/rules', 'change', { 'src/billing/total.js': 'module.exports = 2;\n' });
    const pr = await fetch(`${github.apiUrl}/repos/acme/rules/pulls`, {
      method: 'POST',
      headers: { authorization: 'token write', 'content-type': 'application/json' },
      body: JSON.stringify({ head: 'change', base: 'main', title: 'Change' }),
    }).then((response) => response.json() as Promise<{ number: number }>);
    const loaded = await activities().loadInstructions({ repo: 'acme/rules', pullRequest: pr.number });
    expect(loaded.source).toBe('github');
    expect(loaded.files.map((file) => [file.path, file.text])).toEqual([
      ['src/billing/AGENTS.md', FILES['src/billing/AGENTS.md']],
      ['AGENTS.md', FILES['AGENTS.md']],
      ['CLAUDE.md', FILES['CLAUDE.md']],
      ['.github/copilot-instructions.md', FILES['.github/copilot-instructions.md']],
      ['.switchboard/instructions.md', FILES['.switchboard/instructions.md']],
    ]);
  });

  it('reads them inside the checkout’s sandbox when the run has one (what the checkout holds, not GitHub)', async () => {
    const workspace = fixture.workspace();
    await fixture.activities.writeFile({ workspace, path: 'AGENTS.md', content: 'Checkout: the local copy wins.' });
    await fixture.activities.writeFile({ workspace, path: 'lib/AGENTS.md', content: 'Lib: no globals.' });
    const requests = github.state.requests.length;
    const loaded = await activities().loadInstructions({ repo: 'acme/rules', workspace, paths: ['lib/a/b.js'] });
    expect(loaded).toEqual({
      source: 'checkout',
      files: [
        { path: 'lib/AGENTS.md', text: 'Lib: no globals.', chars: 16 },
        { path: 'AGENTS.md', text: 'Checkout: the local copy wins.', chars: 30 },
      ],
      skipped: [],
    });
    expect(github.state.requests.length).toBe(requests);
  });
});
