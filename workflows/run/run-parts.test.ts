import type { ToolCall } from '../contracts/model';
import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { GitHubWriteActivities } from '../activity-proxies';
import type { RunInput } from '../contracts';
import { CallLog, FakeClock } from '../test-support';
import { RunControl } from './run-control';
import { RunParts, type RunProxies } from './run-parts';
import { callIndex } from './run-tools';
import { RunState } from './run-state';

function input(agent = 'explore', extra: Partial<RunInput> = {}, profile: Partial<RunInput['profile']> = {}): RunInput {
  const resolved = resolveProfile({ agent: getAgent(builtinCatalog(), agent)!, config: defaultAgentsConfig(), directives: {} });
  return {
    threadId: 'thread:cli:1',
    profile: { ...resolved, ...profile },
    system: 's',
    request: 'why?',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'github', repo: 'acme/app', pullRequest: 7 },
    ...extra,
  };
}

/** Every proxy a fake that logs `<activity>` (shared queue) or `<activity>@<queue>` (one host's). */
function proxies(log: CallLog, hostQueue = 'host-a'): RunProxies {
  const on = (queue?: string) => {
    const at = (name: string) => (queue ? `${name}@${queue}` : name);
    return {
      shell: { bash: log.fn(at('bash'), () => ({ exitCode: 0, output: '' })) },
      files: {
        readFile: log.fn(at('readFile'), () => ({})),
        writeFile: log.fn(at('writeFile'), () => ({})),
        jobStatus: log.fn(at('jobStatus'), () => ({})),
      },
      skills: { listSkills: log.fn(at('listSkills'), () => []), useSkill: log.fn(at('useSkill'), () => ({})) },
      attach: { attachFile: log.fn(at('attachFile'), () => ({})) },
      workspaces: { closeWorkspace: log.fn(at('closeWorkspace'), () => ({})) },
      mcp: {
        mcpDiscover: log.fn(at('mcpDiscover'), () => ({})),
        mcpCall: log.fn(at('mcpCall'), () => ({})),
        mcpClose: log.fn(at('mcpClose'), () => ({})),
      },
      unitWorkspace: {
        releaseWorkspace: log.fn(at('releaseWorkspace'), () => ({})),
        commitWorkspace: log.fn(at('commitWorkspace'), () => ({})),
      },
      github: { pushBranch: log.fn(at('pushBranch'), () => ({})) },
      probe: { prepareWorkspace: log.fn(at('probe'), () => ({})) },
    };
  };
  const shared = on();
  return {
    ...shared,
    repoReads: { loadInstructions: log.fn('loadInstructions', () => ({})), repoSettings: log.fn('repoSettings', () => ({})) },
    workspacePrepare: { prepareWorkspace: log.fn('prepareWorkspace', () => ({ hostTaskQueue: hostQueue })) },
    hostBound: (queue: string) => on(queue),
    residentQueues: { residentQueue: log.fn('residentQueue', () => ({})) },
    residentBound: (queue: string) => ({ prepareUnitWorkspace: log.fn(`prepareUnitWorkspace@${queue}`, () => ({})) }),
    githubUnitSteps: { githubPullGet: log.fn('githubPullGet', () => ({})), pushBranch: log.fn('pushBranch', () => ({})) },
    setup: { loadAgentSetup: log.fn('loadAgentSetup', () => ({})) },
    repoVetting: { vetRepository: log.fn('vetRepository', () => ({ ok: true })) },
    githubToolReads: {},
    units: {},
    web: {},
    boards: {},
  } as unknown as RunProxies;
}

function parts(run: RunInput, options: { runId?: string; before?: string[] } = {}) {
  const log = new CallLog();
  const asked: string[] = [];
  const clock = new FakeClock();
  const state = new RunState(run, clock.now());
  const built = new RunParts({
    runId: options.runId ?? 'run:thread:cli:1:1',
    input: run,
    state,
    control: new RunControl(state, clock.now),
    clock,
    card: { touch: () => undefined },
    proxies: proxies(log),
    githubWrites: {} as GitHubWriteActivities,
    patched: (id) => {
      asked.push(id);
      return !options.before?.includes(id);
    },
    sleep: async () => undefined,
    signal: async () => undefined,
    startRun: () => Promise.reject(new Error('no children here')),
    nonCancellable: (work) => work(),
  });
  return { log, asked, state, parts: built };
}

const bash = { workspace: { key: 'thread:cli:1', network: true }, command: 'ls' } as never;

describe('RunParts', () => {
  it("asks the host-queue marker first; the workspace is the thread's, with the network the machine class gives", () => {
    const { parts: built, asked } = parts(input());
    expect(asked).toEqual(['workspace-calls-on-host-queue']);
    expect(built.workspace).toEqual({ key: 'thread:cli:1', network: true });
    expect(built.direct).toBeUndefined();
    expect(built.mcpTools).toBeUndefined();
    expect(parts(input('explore', {}, { machine: 'none' })).parts.workspace.network).toBe(false);
  });

  it("prepares the workspace once, then sends the run's calls, its close and its record to that host", async () => {
    const { parts: built, log } = parts(input());
    await built.tools.activities.shell.bash(bash);
    await built.tools.activities.shell.bash(bash);
    await built.closeWorkspace();
    expect(log.names()).toEqual(['prepareWorkspace', 'bash@host-a', 'bash@host-a', 'closeWorkspace@host-a']);
    expect(built.record(0)).toMatchObject({ workspaceHost: 'host-a' });
    expect(built.continued({ deadline: 5 } as never).carry).toEqual({ deadline: 5, workspaceHost: 'host-a' });
  });

  it("keeps the host a continued run carries, and releases an agent child's own workspace there", async () => {
    const carried = input('explore', { carry: { workspaceHost: 'host-b' } as never });
    const { parts: again, log } = parts(carried);
    await again.tools.activities.shell.bash(bash);
    expect(log.names()).toEqual(['bash@host-b']);

    const child = parts(input('explore', { parent: { workflowId: 'run:thread:cli:1:1', depth: 1 }, workspaceHost: 'host-c' }), {
      runId: 'run:thread:cli:1:1/task-1',
    });
    expect(child.parts.workspace.key).toBe('run:thread:cli:1:1/task-1');
    await child.parts.closeWorkspace();
    expect(child.log.names()).toEqual(['releaseWorkspace@host-c']);
  });

  it('replays runs recorded before host queues on the shared queue', async () => {
    const { parts: built, log } = parts(input(), { before: ['workspace-calls-on-host-queue'] });
    await built.tools.activities.shell.bash(bash);
    await built.closeWorkspace();
    expect(log.names()).toEqual(['bash', 'closeWorkspace']);
  });

  it("makes a direct review run (asking its marker after the host's) and hands its submissions to the tools", () => {
    const { parts: built, asked } = parts(input('review'));
    expect(asked).toEqual(['workspace-calls-on-host-queue', 'direct-review-and-coding']);
    expect(built.direct).toBeDefined();
    expect(built.tools.direct).toBe(built.direct);
    expect(parts(input('review'), { before: ['direct-review-and-coding'] }).parts.direct).toBeUndefined();
  });

  it("keys a publishing call by run, tool, turn and its place among the turn's calls", () => {
    const { parts: built, state } = parts(input());
    const calls: ToolCall[] = [
      { id: 'a', name: 'bash', input: {} },
      { id: 'b', name: 'github_comment', input: {} },
    ];
    state.turns = 3;
    state.messages.push({ role: 'assistant', text: '', toolCalls: calls });
    expect(built.tools.effectKey(calls[1])).toBe('run:thread:cli:1:1/github_comment/3.1');
    expect(callIndex(state, { id: 'z' })).toBe(-1);
  });

  it("settles a command runner's answer by code and leaves any other run's as the model gave it", () => {
    const plain = parts(input());
    plain.state.finalText = 'The answer.';
    plain.parts.settleAnswer();
    expect(plain.state.finalText).toBe('The answer.');

    const runner = parts(input('explore', {}, { result: 'command' }));
    runner.state.messages.push(
      { role: 'assistant', text: 'Running.', toolCalls: [{ id: 'b1', name: 'bash', input: { command: 'npm test' } }] },
      { role: 'tool', results: [{ callId: 'b1', name: 'bash', content: 'exit code 1\nFAIL', isError: true }] },
    );
    runner.state.finalText = 'It is fine.';
    runner.parts.settleAnswer();
    expect(runner.state.finalText).toBe('`npm test` failed:\nexit code 1\nFAIL');
  });
});
