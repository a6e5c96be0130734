import { builtinCatalog, getAgent, getRole } from './catalog';
import { defaultAgentsConfig } from './config';
import { isDelegableAgent, MAX_TASK_DEPTH, resolveAgentChildProfile, resolveRoleProfile, resolveTaskTarget, roleTools } from './delegation';
import { needsVetting } from '../workflows/thread/vet';
import { resolveProfile } from './profile';

const catalog = builtinCatalog();
const config = defaultAgentsConfig();
const parentOf = (id: string) => resolveProfile({ agent: getAgent(catalog, id)!, config, directives: {} });

describe('task targets: roles and agents share names, resolved by the parent', () => {
  it.each([
    ['coding', 'explore', 'role', 'Explore (role)'],
    ['coding', 'worker', 'role', 'Worker'],
    ['coding', 'research', 'agent', 'Research'],
    ['conductor', 'explore', 'agent', 'Explore'],
    ['conductor', 'research', 'agent', 'Research'],
  ])('from %s, %s is the %s %s', (parent, agentType, kind, displayName) => {
    expect(resolveTaskTarget(catalog, agentType, parentOf(parent))).toMatchObject({ ok: true, kind, definition: { displayName } });
  });

  it.each([
    ['conductor', 'worker', 'task_target_unknown', /You can delegate to: research, explore, code-review\./],
    ['conductor', 'general', 'task_target_writes', /writes outside its sandbox/],
    [
      'coding',
      'ship',
      'task_target_writes',
      /You can delegate to: explore, worker, reviewer, debug, researcher, general-purpose, task, rubber-duck, research, code-review\./,
    ],
    ['coding', 'nope', 'task_target_unknown', /No role or agent called "nope"/],
  ])('from %s, %s is refused as %s', (parent, agentType, code, message) => {
    const target = resolveTaskTarget(catalog, agentType, parentOf(parent));
    expect(target).toMatchObject({ ok: false, code });
    if (!target.ok) expect(target.message).toMatch(message);
  });

  it('only read-only, non-delegating, non-pipeline agents are delegable', () => {
    expect(catalog.agents.filter(isDelegableAgent).map((a) => a.id)).toEqual(['research', 'explore', 'code-review']);
  });
});

describe('role tools and profiles', () => {
  it.each([
    ['explore', 'coding', ['read_file', 'grep', 'find_files', 'list_directory']],
    ['researcher', 'coding', ['read_file', 'grep', 'find_files', 'list_directory']],
    ['reviewer', 'review', ['read_file', 'grep', 'find_files']],
    ['explore', 'explore', ['read_file']],
    [
      'debug',
      'review',
      [
        'bash',
        'read_file',
        'grep',
        'find_files',
        'list_directory',
        'update_status',
        'list_skills',
        'use_skill',
        'github_repos',
        'github_tree',
        'github_file',
        'github_search_code',
        'github_issue_list',
        'github_issue_get',
        'github_pull_get',
        'submit_review',
      ],
    ],
  ])('%s under %s holds %j (a listed tool the parent lacks is absent)', (role, parent, tools) => {
    expect(roleTools(getRole(catalog, role)!, parentOf(parent).tools)).toEqual(tools);
  });

  it.each(['worker', 'debug', 'general-purpose'])(
    "%s inherits the parent's tools, task included while it may still delegate (002), and not at the depth limit",
    (id) => {
      const parent = parentOf('coding').tools;
      expect(roleTools(getRole(catalog, id)!, parent, 1)).toEqual(parent);
      const deepest = roleTools(getRole(catalog, id)!, parent, MAX_TASK_DEPTH);
      expect(deepest).toContain('write_file');
      expect(deepest).not.toContain('task');
      expect(resolveRoleProfile({ role: getRole(catalog, id)!, parent: parentOf('coding'), depth: 1 }).tools).toContain('task');
    },
  );

  it('a role takes its model and effort from agents.entries over the parent, and the task call over both', () => {
    const parent = parentOf('coding');
    const entries = { config: defaultAgentsConfig({ entries: { task: { model: 'claude-haiku-4-5', effort: 'low' } } }) };
    const task = getRole(catalog, 'task')!;
    expect(resolveRoleProfile({ role: task, parent, ...entries })).toMatchObject({
      model: { value: 'claude-haiku-4-5', chosenBy: 'entry' },
      effort: { value: 'low', chosenBy: 'entry' },
      result: 'command',
    });
    expect(resolveRoleProfile({ role: task, parent, ...entries, model: 'm-big' }).model).toEqual({ value: 'm-big', chosenBy: 'directive' });
    expect(resolveRoleProfile({ role: getRole(catalog, 'worker')!, parent, ...entries }).model).toEqual(parent.model);
  });

  it('a role runs in the parent session, bounded by what the parent has left', () => {
    const parent = parentOf('coding');
    const child = resolveRoleProfile({ role: getRole(catalog, 'worker')!, parent, parentRemainingMinutes: 12, model: 'm-small' });
    expect(child).toMatchObject({
      agent: 'worker',
      kind: 'role',
      machine: 'repo-resident',
      identity: 'write',
      turnGuard: 72,
      model: { value: 'm-small', chosenBy: 'directive' },
    });
    expect(child.budget).toMatchObject({ minutes: 12, boundedBy: 'parent', presetMinutes: 30 });
    const roomy = resolveRoleProfile({ role: getRole(catalog, 'debug')!, parent });
    expect(roomy.budget).toMatchObject({ minutes: 20, boundedBy: 'preset' });
    expect(getRole(catalog, 'debug')!.conversation).toBe('inherited');
  });
});

/**
 * The thread vets a run's repository (workflows/thread/vet.ts) before the run starts. A role
 * child runs in its parent's session (its machine class, identity and repository), so it needs
 * no vet of its own. An agent child runs in a session of its own (resolveAgentChildProfile): on a
 * repository machine class it reaches a repository its parent may never have been vetted for (a
 * conductor has no machine), so TaskChildren vets it first (task-children.test.ts).
 */
describe('what a task child reaches', () => {
  const inRepo = (id: string) => resolveProfile({ agent: getAgent(catalog, id)!, config, directives: { repo: 'acme/app' } });
  it.each([
    ['coding', 'explore'],
    ['coding', 'worker'],
  ])('a role (%s -> %s) keeps the parent machine, identity and repository', (parentId, agentType) => {
    const parent = inRepo(parentId);
    const target = resolveTaskTarget(catalog, agentType, parent);
    if (!target.ok || target.kind !== 'role') throw new Error(`expected a role for ${agentType}`);
    const child = resolveRoleProfile({ role: target.definition, parent });
    expect({ machine: child.machine, identity: child.identity, repo: child.repo }).toEqual({
      machine: parent.machine,
      identity: parent.identity,
      repo: parent.repo,
    });
    expect(needsVetting(child) && !needsVetting(parent)).toBe(false);
  });

  it.each([
    ['conductor', 'explore', 'repo-cold', true],
    ['conductor', 'research', 'none', false],
  ])(
    'an agent (%s -> %s) runs on its own machine class (%s) in the parent repository; vetted first: %s',
    (parentId, agentType, machine, vetted) => {
      const parent = inRepo(parentId);
      const target = resolveTaskTarget(catalog, agentType, parent);
      if (!target.ok || target.kind !== 'agent') throw new Error(`expected an agent for ${agentType}`);
      const child = resolveAgentChildProfile({ agent: target.definition, parent });
      expect({ machine: child.machine, identity: child.identity, repo: child.repo }).toEqual({
        machine,
        identity: target.definition.identity,
        repo: parent.repo,
      });
      expect(needsVetting(child)).toBe(vetted);
    },
  );
});
