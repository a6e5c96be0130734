import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { RepositoriesConfigSchema } from '../../infra/config/repository-section';
import { createGitHubIdentities } from './identity';
import { createRepoSettingsReader, mergeRepositorySettings, parseSettingsFile } from './repo-settings';

const EVERY_KEY = `
review:
  triggers: [opened, ready_for_review, review_requested, push]
  debounceSeconds: 30
  severity: major
issues:
  assign: true
  label: switchboard
setup:
  commands: ["npm ci"]
  lockfiles: [package-lock.json]
  timeoutSeconds: 300
agents:
  allowed: [ship, review, general]
mcp:
  agents:
    review: [{ server: tracker, tools: ["get_*"] }]
pushes:
  forceOwnBranch: false
  pullRequestHeads: true
`;

describe('a repository’s .switchboard.yml', () => {
  it('reads every key', () => {
    expect(parseSettingsFile(EVERY_KEY)).toEqual({
      values: {
        review: { triggers: ['opened', 'ready_for_review', 'review_requested', 'push'], debounceSeconds: 30, severity: 'major' },
        issues: { assign: true, label: 'switchboard' },
        setup: { commands: ['npm ci'], lockfiles: ['package-lock.json'], timeoutSeconds: 300 },
        agents: { allowed: ['ship', 'review', 'general'] },
        mcp: { agents: { review: [{ server: 'tracker', tools: ['get_*'] }] } },
        pushes: { forceOwnBranch: false, pullRequestHeads: true },
      },
      problems: [],
    });
  });

  it('names the key of each problem and keeps the sections that are valid', () => {
    const parsed = parseSettingsFile(
      'review:\n  triggers: [opened, pushed]\nissues:\n  label: go\n  lable: oops\nsetup:\n  commands: [make]\ncolour: red\n',
    );
    // What is broken is left out at any depth (a list entry, a key); the rest of each section applies.
    expect(parsed.values).toEqual({ review: { triggers: ['opened'] }, issues: { label: 'go' }, setup: { commands: ['make'] } });
    expect(parsed.problems).toEqual([
      { key: 'review.triggers.1', message: expect.stringContaining('opened') },
      { key: 'issues.lable', message: 'unknown key' },
      { key: 'colour', message: 'unknown key (known: review, issues, setup, agents, mcp, pushes, board)' },
    ]);
    expect(parseSettingsFile('review: [\n').problems).toEqual([
      { key: '(file)', message: expect.stringMatching(/^not valid YAML at line \d+/) },
    ]);
    expect(parseSettingsFile('- a\n').problems[0].key).toBe('(file)');
    // A section that is not a mapping at all is ignored whole.
    expect(parseSettingsFile('review: often\nissues:\n  assign: false\n')).toEqual({
      values: { issues: { assign: false } },
      problems: [{ key: 'review', message: expect.any(String) }],
    });
    // Deeper: an MCP attachment's unknown key inside an agent's list is named; the section is
    // ignored whole (without the misspelt allowlist, the server's every tool would be allowed).
    const deep = parseSettingsFile('mcp:\n  agents:\n    coding:\n      - server: docs\n        tooles: [read]\n');
    expect(deep).toEqual({ values: {}, problems: [{ key: 'mcp.agents.coding.0.tooles', message: 'unknown key' }] });
    // A mistyped value where leaving it out would allow more: the section is ignored whole.
    expect(parseSettingsFile('issues:\n  assign: "no"\n  label: go\n').values).toEqual({});
    expect(parseSettingsFile('agents:\n  allowed: [coding, "Not An Id"]\n').values).toEqual({ agents: { allowed: ['coding'] } });
    expect(parseSettingsFile('')).toEqual({ values: {}, problems: [] });
  });

  it('merges with the deployment’s settings so the stricter wins', () => {
    const deployment = RepositoriesConfigSchema.parse({
      'acme/app': {
        review: { triggers: ['opened', 'push'], debounceSeconds: 10, severity: 'nit' },
        issues: { assign: false },
        setup: { timeoutSeconds: 120 },
        agents: { allowed: ['review', 'ship', 'explore'] },
        pushes: { deleteOwnBranch: false, forceOwnBranch: true },
      },
    })['acme/app'];
    const merged = mergeRepositorySettings(parseSettingsFile(EVERY_KEY).values, deployment, { severity: 'minor', repo: 'acme/app' });
    expect(merged).toEqual({
      review: { triggers: ['opened', 'push'], debounceSeconds: 30, severity: 'nit' },
      issues: { assign: false, label: 'switchboard' },
      setup: { commands: ['npm ci'], lockfiles: ['package-lock.json'], timeoutSeconds: 120 },
      agents: { allowed: ['ship', 'review'], rule: '.switchboard.yml agents.allowed and repositories.acme/app.agents.allowed' },
      mcp: { review: [{ server: 'tracker', tools: ['get_*'] }] },
      // Each switch only turns off: the file's false and the deployment's false both hold, neither's true widens.
      pushes: { forceOwnBranch: false, deleteOwnBranch: false },
    });
    // The deployment's attachments for the repository replace the file's: its own word on what its servers do.
    const ours = RepositoriesConfigSchema.parse({ 'acme/app': { mcp: { agents: { review: [{ server: 'docs' }] } } } })['acme/app'];
    expect(mergeRepositorySettings(parseSettingsFile(EVERY_KEY).values, ours, { severity: 'minor', repo: 'acme/app' }).mcp).toEqual({
      review: [{ server: 'docs' }],
    });
    expect(mergeRepositorySettings({}, undefined, { severity: 'minor', repo: 'acme/app' })).toEqual({
      review: { triggers: [], debounceSeconds: 60, severity: 'minor' },
      issues: { assign: true },
    });
  });
});

describe('the settings reader', () => {
  let github: LocalGitHub;
  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['read'], write: [] } });
  });
  afterAll(async () => {
    await github.close();
  });

  it('reads the file on the default branch with the read identity, one request per read and never the repository itself, and answers a repository it cannot see', async () => {
    github.createRepo('acme', 'settings', { '.switchboard.yml': EVERY_KEY }, { defaultBranch: 'trunk' });
    const reader = createRepoSettingsReader({
      identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens: { read: 'read' } }),
    });
    const ofRepo = () => github.state.requests.filter((r) => r.path.startsWith('/repos/acme/settings'));
    const first = await reader.read('acme/settings');
    expect(first).toMatchObject({ file: 'found', problems: [], settings: { issues: { label: 'switchboard' } } });
    expect(first.fileSha).toMatch(/^[0-9a-f]{40}$/);
    expect(await reader.read('acme/settings')).toEqual(first);
    // The repository's GET is the vet's alone: the reader asks only for the file, on the default branch (trunk here).
    expect(ofRepo().map((r) => `${r.method} ${r.path}`)).toEqual(Array(2).fill('GET /repos/acme/settings/contents/.switchboard.yml'));
    github.commit('acme/settings', 'trunk', { '.switchboard.yml': 'review:\n  severity: loud\n' });
    const broken = await reader.read('acme/settings');
    expect(broken).toMatchObject({ file: 'found', problems: [{ key: 'review.severity' }], settings: { review: { severity: 'minor' } } });
    expect(broken.fileSha).not.toBe(first.fileSha);
    github.createRepo('acme', 'bare', { 'README.md': '#\n' });
    expect(await reader.read('acme/bare')).toMatchObject({ file: 'absent', problems: [] });
    // GitHub answers 404 alike for a repository the identity cannot see: no file, nothing to say.
    expect(await reader.read('acme/missing')).toMatchObject({ file: 'absent', problems: [] });
  });
});
