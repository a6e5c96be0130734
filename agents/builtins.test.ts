import { BUILTIN_AGENTS, BUILTIN_INPUTS, BUILTIN_ROLES, DETACH_RECIPE } from './builtins';
import { AgentDefinitionSchema } from './definition-schema';
import { builtinCatalog, getAgent, getRole } from './catalog';
import { type AgentDefinition, listedTools, turnGuardFor } from './definition';
import { toolsetTools } from '../tools/toolsets';

const agent = (id: string): AgentDefinition => getAgent(builtinCatalog(), id)!;

describe('built-in definitions against the schema', () => {
  // defineAgent fills defaults without zod (workflows evaluate it); the schema is the contract.
  const filled = [...BUILTIN_AGENTS, ...BUILTIN_ROLES];
  it.each(BUILTIN_INPUTS.map((input, k) => [`${input.kind ?? 'agent'} ${input.id}`, k] as const))(
    '%s parses, and defineAgent fills exactly what the schema fills',
    (_name, k) => {
      expect(JSON.stringify(filled[k])).toBe(JSON.stringify(AgentDefinitionSchema.parse(BUILTIN_INPUTS[k])));
    },
  );
});

describe('built-in agents, field by field', () => {
  it("are the eight of the design, then seed 001's code-review and rem-agent, in order", () => {
    expect(BUILTIN_AGENTS.map((a) => a.id)).toEqual([
      'general',
      'coding',
      'review',
      'ship',
      'research',
      'explore',
      'orchestrator',
      'conductor',
      'code-review',
      'rem-agent',
    ]);
  });

  // id, toolset, machine, identity, budget, turn guard, token cap, cache, effort, routable, selfServe, featureFlag
  const table: Array<
    [string, string, string, string, number, number, number, string, string | undefined, boolean, boolean, string | undefined]
  > = [
    ['general', 'general', 'none', 'write', 15, 90, 16_000, '5m', 'medium', true, true, undefined],
    ['coding', 'coding', 'repo-resident', 'write', 60, 360, 32_000, '5m', undefined, false, false, undefined],
    ['review', 'review', 'repo-resident', 'read', 30, 180, 32_000, '5m', 'high', true, false, undefined],
    ['ship', 'pipeline', 'repo-resident', 'write', 90, 540, 32_000, '5m', undefined, true, false, undefined],
    ['research', 'research', 'none', 'read', 20, 120, 16_000, '5m', 'medium', true, true, undefined],
    ['explore', 'explore', 'repo-cold', 'read', 120, 720, 64_000, '1h', undefined, true, false, undefined],
    ['orchestrator', 'orchestrator', 'none', 'read', 15, 90, 16_000, '5m', 'low', false, false, 'orchestrator'],
    ['conductor', 'conductor', 'none', 'read', 30, 180, 16_000, '5m', 'medium', true, true, undefined],
    ['code-review', 'code-review', 'repo-cold', 'read', 30, 180, 32_000, '5m', 'high', false, false, undefined],
    ['rem-agent', 'rem', 'none', 'none', 10, 60, 8_000, '5m', 'low', false, false, undefined],
  ];
  it.each(table)(
    '%s: toolset %s, machine %s, identity %s, %i min, guard %i, %i tokens, cache %s, effort %s, routable %s, selfServe %s, flag %s',
    (id, toolset, machine, identity, budget, guard, tokens, cache, effort, routable, selfServe, flag) => {
      const a = agent(id);
      expect(a).toMatchObject({
        kind: 'agent',
        toolset,
        machine,
        identity,
        budgetMinutes: budget,
        tokenCap: tokens,
        cacheTtl: cache,
        routable,
        selfServe,
      });
      expect(a.effort).toBe(effort);
      expect(a.featureFlag).toBe(flag);
      expect(a.model).toBeUndefined();
      expect(turnGuardFor(a)).toBe(guard);
      expect(a.description.length).toBeGreaterThan(40);
    },
  );

  it('explore: repo-cold, read, 120 min, derived guard 720 (>= 100), >= 64k tokens, cache 1h, no effort; no other preset holds two hours', () => {
    const explore = agent('explore');
    expect(explore.machine).toBe('repo-cold');
    expect(explore.identity).toBe('read');
    expect(explore.turnGuard).toBeUndefined();
    expect(turnGuardFor(explore)).toBeGreaterThanOrEqual(100);
    expect(explore.tokenCap).toBeGreaterThanOrEqual(64_000);
    expect(BUILTIN_AGENTS.filter((a) => a.budgetMinutes >= 120).map((a) => a.id)).toEqual(['explore']);
    expect(explore.description).toMatch(/cannot attach or post files/);
  });

  it('ship is a pipeline with no prompt; every other agent has one', () => {
    expect(agent('ship').pipeline).toBe('ship');
    expect(agent('ship').prompt).toBeUndefined();
    for (const a of BUILTIN_AGENTS.filter((x) => x.id !== 'ship')) expect(a.prompt!.length).toBeGreaterThan(400);
  });

  it('orchestrator and conductor hold no shell; general has issue writes and no workspace', () => {
    expect(listedTools(agent('orchestrator'))).not.toContain('bash');
    expect(listedTools(agent('conductor'))).not.toContain('bash');
    expect(listedTools(agent('general'))).toEqual(expect.arrayContaining(['github_issue_create', 'github_issue_comment']));
    expect(agent('general').machine).toBe('none');
  });
});

describe("explore's prompt", () => {
  const prompt = agent('explore').prompt!;
  it.each([
    ['the claim table', /claim table/i],
    ['the exact command', /exact command/i],
    ['the numbers', /number or output/i],
    ['the verdicts', /holds, does not hold, or could not check/],
    ['a one-line verdict first, the table in a code block', /one-line verdict, then the table .*code block/],
    ['the twenty-minute cap', /twenty minutes \(1,200,000 ms\)/],
    ['the timeoutMs knob', /timeoutMs/],
    ['the setsid recipe, character for character', new RegExp(DETACH_RECIPE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
    ['the read-scoped credential', /read-scoped/],
    ['cloning itself', /Clone the repository yourself/],
    ['no pull request, commit or push', /never open a pull request, never commit, never push/],
    ['the plain-words follow-up', /in <owner\/name>: <the change>/],
    ['no command or directive to type', /Never hand back a command or a directive line/],
    ['cannot attach files', /cannot attach or post files/],
    ['drives the status card', /update_status/],
  ])('names %s', (_what, pattern) => {
    expect(prompt).toMatch(pattern);
  });

  it('names every tool it holds, and no tool it lacks', () => {
    for (const tool of toolsetTools('explore')) expect(prompt).toContain(tool);
    for (const absent of ['nohup', 'attach_file', 'submit_', 'write_file', 'github_issue_create', 'agent:'])
      expect(prompt).not.toContain(absent);
  });

  it('uses the exact detach recipe', () => {
    expect(DETACH_RECIPE).toBe(
      'setsid -f sh -c \'<command> > "$TMPDIR/job.log" 2>&1; echo $? > "$TMPDIR/job.exit"\' </dev/null >/dev/null 2>&1',
    );
  });
});

describe('specialist roles', () => {
  const table: Array<[string, string, string, string[]]> = [
    ['explore', 'role-explore', 'fresh', ['read_file', 'grep', 'find_files', 'list_directory']],
    ['worker', 'inherit', 'fresh', []],
    ['reviewer', 'role-reviewer', 'fresh', ['read_file', 'grep', 'find_files']],
    ['debug', 'inherit', 'inherited', []],
    ['researcher', 'role-researcher', 'fresh', ['read_file', 'grep', 'find_files', 'list_directory', 'web_search']],
    ['general-purpose', 'inherit', 'fresh', []],
    ['task', 'role-task', 'fresh', ['bash', 'read_file', 'wait_for_job']],
    [
      'rubber-duck',
      'role-rubber-duck',
      'fresh',
      [
        'bash',
        'read_file',
        'grep',
        'find_files',
        'list_directory',
        'web_fetch',
        'web_search',
        'github_repos',
        'github_tree',
        'github_file',
        'github_search_code',
        'github_issue_list',
        'github_issue_get',
        'github_pull_get',
      ],
    ],
  ];
  it.each(table)('%s: tools %s, conversation %s', (id, toolset, conversation, tools) => {
    const role = getRole(builtinCatalog(), id)!;
    expect(role).toMatchObject({ kind: 'role', toolset, conversation, machine: 'none', identity: 'none' });
    expect([...toolsetTools(toolset)]).toEqual(tools);
    expect(role.prompt).toBeDefined();
  });

  it('are the five of 002 and the task-tool entries of 001 (general-purpose, task, rubber-duck), with display names apart from ids', () => {
    expect(BUILTIN_ROLES.map((r) => r.id)).toEqual([
      'explore',
      'worker',
      'reviewer',
      'debug',
      'researcher',
      'general-purpose',
      'task',
      'rubber-duck',
    ]);
    expect(getRole(builtinCatalog(), 'explore')!.displayName).not.toBe(getAgent(builtinCatalog(), 'explore')!.displayName);
  });
});
