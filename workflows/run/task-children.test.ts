import { DEFAULT_SHIP_SETTINGS, type AgentSetup } from '../../activities/agents/agent-setup';
import type { VetRepositoryInput, VetRepositoryResult } from '../contracts/github';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput, RunRecord } from '../contracts';
import { FakeClock } from '../test-support';
import { RunControl } from './run-control';
import { RunState } from './run-state';
import { AGENT_CHILD_OWN_SESSION, MAX_TASK_DEPTH, TaskChildren } from './task-children';
import { INHERITED_CUT_NOTE } from './context-window';

interface World {
  parent?: RunInput['parent'];
  /** The parent run's agent (coding by default) and repository. */
  agent?: string;
  repo?: string;
  vet?: VetRepositoryResult;
  sandbox?: AgentSetup['sandbox'];
  /** What `patched(AGENT_CHILD_OWN_SESSION)` answers (a run recorded before it: false). */
  ownSession?: boolean;
  /** What every other `patched()` answers (default true). */
  patches?: boolean;
  /** The deployment's MCP facts and attachments per repository (AgentSetup `mcp`, `repositoryMcp`). */
  mcp?: Pick<AgentSetup, 'mcp' | 'repositoryMcp'>;
}

function children(parent?: RunInput['parent'], world: World = {}) {
  const clock = new FakeClock();
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), world.agent ?? 'coding')!,
    config: defaultAgentsConfig(),
    directives: world.repo ? { repo: world.repo } : {},
  });
  const input: RunInput = {
    threadId: 't',
    profile,
    system: 's',
    request: 'r',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...(parent ? { parent } : {}),
  };
  const state = new RunState(input, clock.now());
  const control = new RunControl(state, clock.now);
  const started: Array<{ workflowId: string; input: RunInput }> = [];
  const vets: VetRepositoryInput[] = [];
  let finish: (record: RunRecord) => void = () => undefined;
  const tasks = new TaskChildren({
    runId: 'run:t:1',
    state,
    control,
    clock,
    setup: {
      loadAgentSetup: async () => ({
        catalog: builtinCatalog(),
        config: defaultAgentsConfig(),
        ship: DEFAULT_SHIP_SETTINGS,
        ...(world.sandbox ? { sandbox: world.sandbox } : {}),
        ...world.mcp,
      }),
    },
    workspaceKey: 't',
    startRun: async (workflowId, child) => {
      started.push({ workflowId, input: child });
      const result = new Promise<RunRecord>((resolve) => (finish = resolve));
      return { result: () => result };
    },
    vet: async (request) => {
      vets.push(request);
      return world.vet ?? { ok: true, repo: request.repo, defaultBranch: 'main', private: false };
    },
    patched: (id) => (id === AGENT_CHILD_OWN_SESSION ? (world.ownSession ?? true) : (world.patches ?? true)),
  });
  return { tasks, state, started, vets, finish: (record: Partial<RunRecord>) => finish(record as RunRecord) };
}

const call = { id: 'c1', name: 'task', input: {} };
const done = { outcome: 'completed', turns: 2, finalText: 'found it', profile: { agent: 'worker' } } as Partial<RunRecord>;

describe('TaskChildren', () => {
  it('refuses delegation past the depth limit without starting anything', async () => {
    const { tasks, started } = children({ workflowId: 'run:t:0', depth: MAX_TASK_DEPTH });
    const result = await tasks.start(call, { agent_type: 'worker', name: 'deep', prompt: 'p' });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('limited to 2 levels') });
    expect(started).toEqual([]);
  });

  it('follows a background child: its job id at once, its answer in the conversation once it ends', async () => {
    const { tasks, state, started, finish } = children();
    const result = await tasks.start(call, { agent_type: 'worker', name: 'part-a', prompt: 'do part a' });
    expect(result.content).toContain('job id run:t:1/task-1-part-a');
    expect(started[0]).toMatchObject({
      workflowId: 'run:t:1/task-1-part-a',
      input: { request: 'do part a', parent: { workflowId: 'run:t:1', depth: 1 }, workspaceKey: 't' },
    });
    expect(tasks.pending()).toBe(true);
    finish(done);
    await new Promise((resolve) => setImmediate(resolve));
    expect(tasks.anyDone()).toBe(true);
    tasks.collect();
    expect(state.messages.at(-1)).toEqual({
      role: 'user',
      text: expect.stringContaining(
        '(background task run:t:1/task-1-part-a finished) Task run:t:1/task-1-part-a (worker) ended completed after 2 turns.\nfound it',
      ),
    });
    expect(state.children[0]).toMatchObject({ index: 1, mode: 'background', outcome: 'completed' });
    expect(tasks.size).toBe(0);
  });

  it('waits for a sync child and answers with its record', async () => {
    const { tasks, finish } = children();
    const answer = tasks.start(call, { agent_type: 'worker', name: 'now', prompt: 'p', mode: 'sync' });
    await new Promise((resolve) => setImmediate(resolve));
    finish(done);
    expect(await answer).toMatchObject({ isError: false, content: expect.stringContaining('Task now (worker) ended completed') });
  });

  describe('an agent child (explore from a conductor) runs in a session of its own', () => {
    const explore = { agent_type: 'explore', name: 'look', prompt: 'how is the cache built?' };

    it("with the agent's machine class, identity and shell, the parent's repository, vetted first", async () => {
      const { tasks, started, vets } = children(undefined, { agent: 'conductor', repo: 'acme/app' });
      const result = await tasks.start(call, explore);
      expect(result.isError).toBeFalsy();
      expect(vets).toEqual([{ repo: 'acme/app', identity: 'read' }]);
      const child = started[0].input;
      expect(child.profile).toMatchObject({
        agent: 'explore',
        kind: 'agent',
        machine: 'repo-cold',
        identity: 'read',
        repo: { value: 'acme/app' },
      });
      expect(child.profile.tools).toContain('bash');
      // Its own workspace: not the parent's key (agent-run.ts keys an agent child by its own run id).
      expect(child.workspaceKey).toBeUndefined();
    });

    it('is refused as data when the vet does not pass, and nothing starts', async () => {
      const vet: VetRepositoryResult = { ok: false, code: 'repo_not_visible', repo: 'acme/app', reason: 'GitHub answered 404' };
      const { tasks, started } = children(undefined, { agent: 'conductor', repo: 'acme/app', vet });
      const result = await tasks.start(call, explore);
      expect(result).toMatchObject({
        isError: true,
        content: expect.stringContaining('acme/app is not visible to the read GitHub identity explore runs with'),
      });
      expect(started).toEqual([]);
    });

    it('is refused when this worker cannot isolate a shell, before any vet', async () => {
      const sandbox = { ready: false, reason: 'bubblewrap is missing', fix: 'install bubblewrap' } as AgentSetup['sandbox'];
      const { tasks, started, vets } = children(undefined, { agent: 'conductor', repo: 'acme/app', sandbox });
      const result = await tasks.start(call, explore);
      expect(result).toMatchObject({
        isError: true,
        content: expect.stringContaining('cannot isolate shell commands right now (bubblewrap is missing)'),
      });
      expect(vets).toEqual([]);
      expect(started).toEqual([]);
    });

    it("with the MCP servers the admission grants its agent, the deployment's attachments for the repository included", async () => {
      const mcp = {
        mcp: {
          servers: { docs: { transport: 'http' as const }, tracker: { transport: 'http' as const } },
          agents: { explore: [{ server: 'docs' }] },
        },
        repositoryMcp: { 'acme/app': { explore: [{ server: 'tracker', tools: ['search_*'] }] } },
      };
      const { tasks, started } = children(undefined, { agent: 'conductor', repo: 'acme/app', mcp });
      await tasks.start(call, explore);
      expect(started[0].input.profile.mcp?.servers).toEqual([
        { server: 'docs', transport: 'http' },
        { server: 'tracker', transport: 'http', tools: ['search_*'] },
      ]);
    });

    it("keeps the parent's session in a run recorded before the change (the patch is not taken)", async () => {
      const { tasks, started, vets } = children(undefined, { agent: 'conductor', repo: 'acme/app', ownSession: false });
      await tasks.start(call, explore);
      expect(vets).toEqual([]);
      expect(started[0].input.profile).toMatchObject({ machine: 'none' });
    });
  });

  describe('debug inherits the conversation, tool calls and results included (002)', () => {
    const symptom = 'SIGSEGV in libparse.so at frame parse_header+0x2f';
    const converse = (state: RunState) => {
      state.messages.push(
        { role: 'assistant', text: 'Running the tests.', toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'npm test' } }] },
        { role: 'tool', results: [{ callId: 'b1', name: 'bash', content: `exit code 139\n${symptom}`, isError: true }] },
        { role: 'assistant', text: 'Asking debug.', toolCalls: [{ id: 'c1', name: 'task', input: {} }] },
      );
    };

    it('starts from every message, the bash call and its result among them, less the call in flight', async () => {
      const { tasks, state, started } = children();
      converse(state);
      await tasks.start(call, { agent_type: 'debug', name: 'why', prompt: 'why does it crash?' });
      const context = started[0].input.context;
      expect(context).toEqual([
        { role: 'user', text: 'r' },
        state.messages[1],
        state.messages[2],
        { role: 'assistant', text: 'Asking debug.', toolCalls: [] },
      ]);
      expect(JSON.stringify(context)).toContain(symptom);
      // It inherits the parent's tools, task included (one level deeper is still allowed).
      expect(started[0].input.profile.tools).toContain('task');
    });

    it('is bounded to half its window: results cut to head and tail, then the oldest exchanges left out', async () => {
      const { tasks, state, started } = children();
      state.contextWindow = 4_000;
      for (let k = 0; k < 6; k += 1) {
        state.messages.push(
          { role: 'assistant', text: `step ${k}`, toolCalls: [{ id: `b${k}`, name: 'bash', input: {} }] },
          { role: 'tool', results: [{ callId: `b${k}`, name: 'bash', content: `${'x'.repeat(5_000)}\nresult ${k}` }] },
          { role: 'user', text: `(steer) go on ${k}` },
        );
      }
      converse(state);
      await tasks.start(call, { agent_type: 'debug', name: 'why', prompt: 'why?' });
      const context = started[0].input.context;
      expect(context[0]).toEqual({ role: 'user', text: INHERITED_CUT_NOTE });
      expect(context[1].role).toBe('user');
      expect(JSON.stringify(context)).toContain(symptom);
      expect(JSON.stringify(context).length / 4).toBeLessThan(2_000 + 500);
    });

    it('gets the words only in a run recorded before (the patch is not taken)', async () => {
      const { tasks, state, started } = children(undefined, { patches: false });
      converse(state);
      await tasks.start(call, { agent_type: 'debug', name: 'why', prompt: 'why?' });
      expect(JSON.stringify(started[0].input.context)).not.toContain(symptom);
    });
  });

  it("starts general-purpose on the parent agent's standing instructions", async () => {
    const { tasks, started } = children();
    await tasks.start(call, { agent_type: 'general-purpose', name: 'broad', prompt: 'do it all' });
    expect(started[0].input.system).toContain(getAgent(builtinCatalog(), 'coding')!.prompt!);
    expect(started[0].input.profile.tools).toContain('write_file');
  });
});
