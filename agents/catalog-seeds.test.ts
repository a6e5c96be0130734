import { builtinCatalog, getAgent, getRole } from './catalog';
import { defaultAgentsConfig } from './config';
import { listedTools } from './definition';
import { resolveRoleProfile, resolveTaskTarget } from './delegation';
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
});

describe('code-review and research, as review and research here', () => {
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
