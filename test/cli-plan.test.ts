import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGitHubIdentities } from '../activities/github';
import { projectRoot } from '../infra/paths';
import { startLocalGitHub, type LocalGitHub } from '../emulators/local-github';
import type { PlanRecord } from '../workflows/contracts';
import type { UnitRecord } from '../workflows/contracts';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { runCli } from './helpers/cli';

jest.setTimeout(240_000);

/** `switchboard plan <plan.yaml>` and `switchboard plans`, as the real `bin/switchboard.js` process, against the local GitHub. */
describe('switchboard plan and plans', () => {
  let kit: RunKit;
  let github: LocalGitHub;
  const repo = `plan-${randomUUID().slice(0, 8)}/app`;

  const switchboard = (...args: string[]) => runCli(kit, args);

  beforeAll(async () => {
    github = await startLocalGitHub({ tokens: { read: ['read-token'], write: ['write-token'] } });
    const [owner, name] = repo.split('/');
    github.createRepo(owner, name, { 'README.md': '# app\n' });
    const identities = createGitHubIdentities({
      apiUrl: github.apiUrl,
      gitUrl: github.gitUrl,
      tokens: { read: 'read-token', write: 'write-token' },
    });
    kit = await startRunKit('cli-plan', { github: identities, ship: { checksPollSeconds: 10 } });
  });
  afterAll(async () => {
    await kit?.close();
    await github?.close();
  });

  it('runs examples/plan.yaml: two units, the second built on the merged first, merged in order', async () => {
    // Reviews approve; the second unit's change only works on top of the first one's merge.
    const model = kit.script('cli-plan-model', [
      {
        alternatives: [
          {
            when: { lastUserIncludes: 'of this unit)' },
            text: 'Fine.',
            toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
          },
          {
            when: { lastUserIncludes: 'Link NOTES.md' },
            text: 'Linking.',
            toolCalls: [
              { name: 'bash', input: { command: 'test -f NOTES.md && printf "\\n## Notes\\n\\nSee NOTES.md.\\n" >> README.md' } },
            ],
          },
          { text: 'Notes.', toolCalls: [{ name: 'bash', input: { command: 'echo "What this repository is for." > NOTES.md' } }] },
        ],
      },
      { text: 'done: {{lastToolResult}}' },
    ]);
    const planId = `plan:${repo}:notes`;
    const ran = await switchboard(
      'plan',
      join(projectRoot(), 'examples', 'plan.yaml'),
      '--repo',
      repo,
      '--model',
      model,
      '--wait',
      '--json',
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const plan = JSON.parse(ran.stdout) as PlanRecord;
    expect(plan).toMatchObject({ planId, outcome: 'completed', mergeAuthority: true, merged: ['notes', 'notes-link'] });
    const numberOf = (key: string) => plan.units.find((unit) => unit.key === key)!.pullRequest;
    const merges = github.state.writes.filter((write) => write.kind === 'pull_request.merge').map((write) => write.number);
    expect(merges).toEqual([numberOf('notes'), numberOf('notes-link')]);
    for (const unit of plan.units) {
      expect(unit.unitId).toBe(`unit:${repo}:notes-${unit.key}`);
      expect(((await kit.env.client.workflow.getHandle(unit.unitId).result()) as UnitRecord).outcome).toBe('merged');
    }

    // `plans get` answers with the record; `plans list` finds it once visibility catches up.
    const got = await switchboard('plans', 'get', planId, '--json');
    expect(JSON.parse(got.stdout)).toEqual(plan);
    let listed: Array<{ planId: string; outcome?: string }> = [];
    for (
      const deadline = Date.now() + 15_000;
      Date.now() < deadline && !listed.some((row) => row.outcome === 'completed');
      await new Promise((resolve) => setTimeout(resolve, 300))
    ) {
      listed = JSON.parse((await switchboard('plans', 'list', '--repo', repo, '--json')).stdout) as typeof listed;
    }
    expect(listed).toEqual([{ planId, status: 'COMPLETED', repo, phase: 'settle', outcome: 'completed' }]);
  });

  it('refuses a plan file with a line per problem, naming the key, before reaching Temporal', async () => {
    const file = join(kit.dir, 'bad-plan.yaml');
    writeFileSync(file, ['name: two', 'units:', '  - { key: a, request: x, dependsOn: [b] }', '  - { key: b, reqest: y }'].join('\n'));
    const refused = await switchboard('plan', file);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: [`${file}: units[1].request: is required`, `${file}: units[1]: unknown key "reqest"`, ''].join('\n'),
    });
    const noRepo = await switchboard('plan', join(kit.dir, 'missing.yaml'));
    expect(noRepo).toMatchObject({ code: 1, stderr: `${join(kit.dir, 'missing.yaml')}: cannot read it (ENOENT)\n` });
    writeFileSync(file, 'name: two\nunits:\n  - { key: a, request: x }\n');
    expect(await switchboard('plan', file)).toMatchObject({ code: 1, stderr: `${file}: repo: is required (or give --repo owner/name)\n` });
  });
});
