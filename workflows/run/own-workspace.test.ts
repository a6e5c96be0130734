import { builtinCatalog, getAgent, resolveProfile } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import type { RunInput } from '../contracts';
import { closeOwnWorkspace, workspaceKeyFor } from './own-workspace';

function input(extra: Partial<RunInput> = {}, profile: Partial<RunInput['profile']> = {}): RunInput {
  const resolved = resolveProfile({ agent: getAgent(builtinCatalog(), 'explore')!, config: defaultAgentsConfig(), directives: {} });
  return {
    threadId: 'thread:cli:1',
    profile: { ...resolved, ...profile },
    system: 's',
    request: 'why?',
    requester: { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...extra,
  };
}

const child = { parent: { workflowId: 'run:thread:cli:1:1', depth: 1 } };

/** Closes over fakes and says what happened: the marker asked, and `release` or `close` called. */
async function close(run: RunInput, options: { marker?: boolean; fails?: boolean } = {}) {
  const happened: string[] = [];
  const effect = (name: string) => async () => {
    happened.push(name);
    if (options.fails) throw new Error(`${name} failed`);
  };
  await closeOwnWorkspace({
    input: run,
    patched: (id) => {
      happened.push(`asked ${id}`);
      return options.marker ?? true;
    },
    release: effect('release'),
    close: effect('close'),
    nonCancellable: (work) => work(),
  });
  return happened;
}

describe('the run and its own workspace', () => {
  it("works in its thread's workspace or the one it is given; a role child in its parent's, an agent child in its own", () => {
    expect(workspaceKeyFor(input(), 'run:thread:cli:1:1')).toBe('thread:cli:1');
    expect(workspaceKeyFor(input({ workspaceKey: 'unit:acme/app#7' }), 'unit:acme/app#7/coding-1')).toBe('unit:acme/app#7');
    expect(workspaceKeyFor(input({ ...child, workspaceKey: 'thread:cli:1' }, { kind: 'role' }), 'run:thread:cli:1:1/task-1')).toBe(
      'thread:cli:1',
    );
    expect(workspaceKeyFor(input({ ...child, workspaceKey: 'thread:cli:1' }), 'run:thread:cli:1:1/task-2')).toBe(
      'run:thread:cli:1:1/task-2',
    );
  });

  it("ends a thread run's processes in its workspace at the end, on its host", async () => {
    expect(await close(input())).toEqual(['asked close-workspace-at-run-end', 'close']);
  });

  it("releases an agent child's own workspace, files and all", async () => {
    expect(await close(input(child))).toEqual(['asked close-workspace-at-run-end', 'release']);
  });

  it("leaves a role child's workspace to its parent, and does nothing for a run without commands", async () => {
    expect(await close(input(child, { kind: 'role' }))).toEqual([]);
    expect(await close(input({}, { tools: ['web_search', 'web_fetch'] }))).toEqual([]);
  });

  it('does nothing in runs recorded before the marker, and a failed cleanup is no failed run', async () => {
    expect(await close(input(), { marker: false })).toEqual(['asked close-workspace-at-run-end']);
    expect(await close(input(), { fails: true })).toEqual(['asked close-workspace-at-run-end', 'close']);
  });
});
