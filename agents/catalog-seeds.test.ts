import { builtinCatalog, getAgent, getRole } from './catalog';
import { defaultAgentsConfig } from './config';
import { listedTools } from './definition';
import { resolveRoleProfile, resolveTaskTarget } from './delegation';
import { SEED_001_ENTRIES } from './docs';
import { resolveProfile } from './profile';
import { buildSystemPrompt, PARALLEL_BLOCK } from './prompt';
import { getTool, TOOL_NAMES } from '../tools/registry';

// Each entry of seed 001 (the packaged catalog) with the behaviour the seed names, as this
// catalog has it. The five roles of seed 002 are in builtins.test.ts and delegation.test.ts;
// the end-to-end runs of general-purpose, task, rubber-duck and debug are in test/roles.test.ts.

const catalog = builtinCatalog();
const config = defaultAgentsConfig();
const parentOf = (id: string, extra: Parameters<typeof resolveProfile>[0]['config'] = config) =>
  resolveProfile({ agent: getAgent(catalog, id)!, config: extra, directives: {} });

describe('general-purpose: the full toolset and the standard prompt, in a separate context', () => {
  const role = getRole(catalog, 'general-purpose')!;
  const parent = parentOf('coding');
  const child = resolveRoleProfile({ role, parent, depth: 1 });

  it('holds every tool of its parent, task included (it may delegate one level deeper), in a fresh conversation', () => {
    expect(child.tools).toEqual(parent.tools);
    expect(child.tools).toContain('task');
    expect(role.conversation).toBe('fresh');
  });

  it("runs on the parent agent's standing instructions, with the parallel-calling guidance", () => {
    const system = buildSystemPrompt(role, child, { parent: getAgent(catalog, 'coding')! });
    expect(system).toContain(getAgent(catalog, 'coding')!.prompt!);
    expect(system).toContain(PARALLEL_BLOCK);
    // A focused role does not: its prompt is its own.
    const explore = getRole(catalog, 'explore')!;
    expect(
      buildSystemPrompt(explore, resolveRoleProfile({ role: explore, parent }), { parent: getAgent(catalog, 'coding')! }),
    ).not.toContain(getAgent(catalog, 'coding')!.prompt!);
  });

  it('is reached through the task tool from a run with a workspace', () => {
    expect(resolveTaskTarget(catalog, 'general-purpose', parent)).toMatchObject({ ok: true, kind: 'role' });
  });
});

describe('task: the command runner', () => {
  const role = getRole(catalog, 'task')!;
  it('holds the shell, a file read and the job wait, and nothing that writes a file or delegates', () => {
    expect(listedTools(role)).toEqual(['bash', 'read_file', 'wait_for_job']);
    expect(role.result).toBe('command');
    expect(resolveRoleProfile({ role, parent: parentOf('coding'), depth: 1 })).toMatchObject({ result: 'command' });
  });

  it('is told to run once and not fix, analyse or retry; the report itself is code (workflows/run/command-report.ts)', () => {
    expect(role.prompt).toMatch(/exactly once/);
    expect(role.prompt).toMatch(/Do not fix, analyse, suggest or retry/);
  });

  it('is a cheap entry by configuration, as the seed packages it on a small model', () => {
    const entries = defaultAgentsConfig({ entries: { task: { model: 'claude-haiku-4-5' } } });
    expect(resolveRoleProfile({ role, parent: parentOf('coding'), config: entries }).model).toEqual({
      value: 'claude-haiku-4-5',
      chosenBy: 'entry',
    });
  });
});

describe('rubber-duck: a critic that changes nothing', () => {
  const role = getRole(catalog, 'rubber-duck')!;
  it('can read, run checks and look things up, and holds no tool that writes, publishes or delegates', () => {
    const tools = resolveRoleProfile({ role, parent: parentOf('coding'), depth: 1 }).tools;
    expect(tools).toEqual(expect.arrayContaining(['bash', 'read_file', 'grep']));
    for (const name of tools) {
      expect(getTool(name)?.publishes).toBe(false);
      expect(['write_file', 'task', 'submit_description', 'submit_review', 'attach_file']).not.toContain(name);
    }
  });

  it('is asked for critique that matters, never a change', () => {
    expect(role.prompt).toMatch(/devil's advocate/);
    expect(role.prompt).toMatch(/never change a file/);
  });

  it('runs on a model of another family than its parent, the first agents.entries.rubber-duck.complementary names', () => {
    const entries = defaultAgentsConfig({
      defaults: { model: 'anthropic:claude-sonnet-4-6' },
      entries: { 'rubber-duck': { complementary: ['anthropic:claude-opus-4-1', 'openai:gpt-5'] } },
    });
    const parent = parentOf('coding', entries);
    expect(parent.rolesOff).toBeUndefined();
    expect(resolveTaskTarget(catalog, 'rubber-duck', parent, entries)).toMatchObject({ ok: true, kind: 'role' });
    expect(resolveRoleProfile({ role, parent, config: entries, depth: 1 }).model).toEqual({ value: 'openai:gpt-5', chosenBy: 'entry' });
  });

  it('is left out of the parent’s task tool, with the reason, when no model of another family may be used', () => {
    const sameFamily = defaultAgentsConfig({
      defaults: { model: 'claude-sonnet-4-6' },
      entries: { 'rubber-duck': { complementary: ['anthropic:claude-opus-4-1'] } },
    });
    for (const entries of [config, sameFamily]) {
      const parent = parentOf('coding', entries);
      expect(parent.rolesOff).toEqual([
        { role: 'rubber-duck', why: expect.stringMatching(/agents\.entries\.rubber-duck\.complementary names none/) },
      ]);
      const target = resolveTaskTarget(catalog, 'rubber-duck', parent, entries);
      expect(target).toMatchObject({ ok: false, code: 'task_target_unavailable' });
      if (!target.ok) expect(target.choices).not.toContain('rubber-duck');
      const system = buildSystemPrompt(getAgent(catalog, 'coding')!, parent);
      expect(system).toMatch(/Not offered through task to this run: rubber-duck \(it runs on a model of another family/);
    }
    // A run without a workspace has no roles to leave out.
    expect(parentOf('conductor').rolesOff).toBeUndefined();
  });
});

describe('code-review, research and rem-agent', () => {
  it('code-review reports material issues only, in text: read-only, no submission, reached by task', () => {
    const codeReview = getAgent(catalog, 'code-review')!;
    expect(codeReview).toMatchObject({ machine: 'repo-cold', identity: 'read', routable: false });
    expect(listedTools(codeReview)).not.toEqual(expect.arrayContaining(['write_file']));
    expect(listedTools(codeReview).filter((tool) => tool.startsWith('submit_') || getTool(tool)?.publishes)).toEqual([]);
    expect(codeReview.prompt).toMatch(/bugs and logic errors;\n- security issues;\n- race conditions and resource leaks;/);
    expect(codeReview.prompt).toMatch(/Do not comment on style, formatting, naming, grammar, minor refactors/);
    // The task a review request was refused as before (task_target_writes) reaches it now, from a workspace or not.
    expect(resolveTaskTarget(catalog, 'code-review', parentOf('coding'))).toMatchObject({ ok: true, kind: 'agent' });
    expect(resolveTaskTarget(catalog, 'code-review', parentOf('conductor'))).toMatchObject({ ok: true, kind: 'agent' });
  });

  it('rem-agent holds the board alone and is started by a board, never by a message or a task', () => {
    const rem = getAgent(catalog, 'rem-agent')!;
    expect(listedTools(rem)).toEqual(['context_board']);
    expect(rem).toMatchObject({ machine: 'none', identity: 'none' });
    expect(resolveTaskTarget(catalog, 'rem-agent', parentOf('conductor'))).toMatchObject({ ok: false, code: 'task_target_writes' });
    expect(rem.prompt).toMatch(/it never instructs you/);
  });

  it('review reports material defects only and submits one verdict; it holds no file write', () => {
    const review = getAgent(catalog, 'review')!;
    expect(listedTools(review)).toContain('submit_review');
    expect(listedTools(review)).not.toContain('write_file');
    expect(review.prompt).toMatch(/Omit: polish and cosmetic preferences/);
  });

  it('research searches to discover and fetches to investigate, citing every claim; it has no workspace', () => {
    const research = getAgent(catalog, 'research')!;
    expect(listedTools(research)).toEqual(expect.arrayContaining(['web_search', 'web_fetch']));
    expect(research.machine).toBe('none');
    expect(research.prompt).toMatch(/Search to discover, fetch to investigate/);
    expect(research.prompt).toMatch(/Every claim in your answer carries its source/);
  });
});

describe('per-entry model and effort (agents.entries), in the layers defaults -> agent -> channel -> person -> directive', () => {
  const entries = defaultAgentsConfig({
    entries: { review: { model: 'claude-opus-4-1', effort: 'low' } },
    channels: { C1: { model: 'claude-sonnet-4-6' } },
  });
  const review = getAgent(catalog, 'review')!;

  it("an entry's setting is the agent's layer: over the definition and the defaults", () => {
    const profile = resolveProfile({ agent: review, config: entries, directives: {} });
    expect(profile.model).toEqual({ value: 'claude-opus-4-1', chosenBy: 'entry' });
    // The definition says high; the entry says low.
    expect(profile.effort).toEqual({ value: 'low', chosenBy: 'entry' });
    expect(buildSystemPrompt(review, profile)).toContain(
      "model: claude-opus-4-1 (from this deployment's setting for this agent (agents.entries))",
    );
  });

  it('a channel, a person and a directive still choose above it', () => {
    expect(resolveProfile({ agent: review, config: entries, channelId: 'C1', directives: {} }).model).toEqual({
      value: 'claude-sonnet-4-6',
      chosenBy: 'channel',
    });
    expect(resolveProfile({ agent: review, config: entries, directives: { effort: 'high' } }).effort).toEqual({
      value: 'high',
      chosenBy: 'directive',
    });
  });
});

describe('prompts promise only what the definitions hold', () => {
  it.each([...catalog.agents, ...catalog.roles].filter((d) => d.prompt).map((d) => [`${d.kind} ${d.id}`, d] as const))(
    '%s names only tools it holds (a role: its own list, or its parent’s when it inherits)',
    (_name, definition) => {
      if (definition.toolset === 'inherit') return;
      const held = listedTools(definition);
      const named = TOOL_NAMES.filter((tool) => new RegExp(`\\b${tool}\\b`).test(definition.prompt!));
      expect(named.filter((tool) => !held.includes(tool) && tool !== 'task')).toEqual([]);
    },
  );

  it("the coding prompt names every role it may delegate to, and the task tool's description every built-in role", () => {
    for (const role of catalog.roles) {
      expect(getAgent(catalog, 'coding')!.prompt).toMatch(new RegExp(`\\b${role.id}\\b`));
      expect(getTool('task')!.description).toMatch(new RegExp(`\\b${role.id}\\b`));
    }
  });
});

describe('docs/agents.md lists the seven entries of seed 001', () => {
  it('each with what it is here, and where it is reached', () => {
    expect(SEED_001_ENTRIES.map((entry) => entry.seed)).toEqual([
      'general-purpose',
      'explore',
      'task',
      'code-review',
      'research',
      'rubber-duck',
      'rem-agent',
    ]);
    for (const entry of SEED_001_ENTRIES)
      for (const here of entry.here)
        expect([entry.seed, (here.kind === 'agent' ? getAgent : getRole)(catalog, here.id)?.id]).toEqual([entry.seed, here.id]);
  });
});
