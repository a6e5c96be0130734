import { randomUUID } from 'node:crypto';
import type { ToolCall } from '../workflows/contracts/model';
import { sandboxFixture } from '../activities/sandbox/test-support';
import { createUnitClientActivities } from '../activities/units/unit-client';
import { builtinCatalog, getAgent, resolveProfile } from '../agents';
import { defaultAgentsConfig } from '../agents/config';
import { BASH_OUTPUT_LIMIT, getTool } from '../tools';
import type { RunInput } from '../workflows/contracts';
import { EXECUTORS, type ExecutorActivities, type ToolContext } from '../workflows/run/executors';
import { RunState } from '../workflows/run/run-state';
import { startRunKit, type RunKit } from './helpers/run-kit';
import { waitUntil } from './helpers/wait';

jest.setTimeout(180_000);

/**
 * Issue 33, item 5: what each tool's description promises is what the tool returns, checked
 * against the real backends: `bash` in the real sandbox (stdout and stderr combined in order,
 * bounded, a long output saved), `fleet_status` over Temporal's visibility (running and ended
 * work alike, with the status), `submit_description` in a ship unit's run, and `update_status`'s
 * checklist.
 */
function context(agent: string, activities: Partial<ExecutorActivities>, extra: Partial<RunInput> = {}): ToolContext {
  const profile = resolveProfile({
    agent: getAgent(builtinCatalog(), agent)!,
    config: defaultAgentsConfig({ featureFlags: { orchestrator: true } }),
    directives: {},
  });
  const input: RunInput = {
    threadId: 't',
    profile,
    system: 's',
    request: 'r',
    requester: { id: 'tester', surface: 'cli' },
    context: [],
    replyTarget: { kind: 'cli' },
    ...extra,
  };
  const state = new RunState(input, Date.now());
  return {
    state,
    workspace: { key: `promises-${randomUUID().slice(0, 8)}`, network: false },
    activities: activities as ExecutorActivities,
    touchCard: () => undefined,
    runTask: () => Promise.reject(new Error('no tasks here')),
    waitForTask: () => Promise.reject(new Error('no tasks here')),
    remainingMs: () => 60_000,
    sleep: async () => undefined,
    signal: async () => undefined,
    effectKey: (call) => `run:t:1/${call.name}/0.${call.id}`,
  };
}
const call = (name: string, input: unknown): ToolCall => ({ id: '1', name, input });
const description = (name: string) => getTool(name)!.description;

describe('tool descriptions promise what the tools return', () => {
  let sandbox: Awaited<ReturnType<typeof sandboxFixture>>;
  let kit: RunKit;
  beforeAll(async () => {
    sandbox = await sandboxFixture({});
    kit = await startRunKit('promises');
  });
  afterAll(async () => {
    await sandbox?.cleanup();
    await kit?.close();
  });

  it('bash: one stream of stdout and stderr in the order written, bounded to its head and tail, a long output saved', async () => {
    expect(description('bash')).toContain('stdout and stderr combined in one stream, in the order they were written');
    expect(description('bash')).toContain(
      `Past ${BASH_OUTPUT_LIMIT.toLocaleString('en-US')} characters only the head and the tail are returned`,
    );
    const ctx = context('coding', { shell: { bash: (input) => sandbox.activities.bash(input) } });
    ctx.workspace = sandbox.workspace();
    const mixed = await EXECUTORS.bash(ctx, call('bash', {}), { command: 'echo out; echo err >&2; echo out2 >&2; echo out3' });
    expect(mixed.content).toBe('exit code 0\nout\nerr\nout2\nout3\n');
    // Redirected, stderr is read apart, as the description says.
    const apart = await EXECUTORS.bash(ctx, call('bash', {}), {
      command: 'echo out; echo err 2>/dev/null >&2; echo kept >&2 2>/tmp/err.txt; cat /tmp/err.txt',
    });
    expect(apart.content.split('\n').slice(1, 2)).toEqual(['out']);
    // Past the bound: the head, the tail, the middle marked as omitted, and where the whole output is.
    const long = await EXECUTORS.bash(ctx, call('bash', {}), { command: 'seq 1 40000' });
    expect(long.content).toMatch(/^exit code 0\n1\n2\n3\n/);
    expect(long.content).toContain('39999\n40000\n');
    expect(long.content).toMatch(/\[… output truncated: \d+ characters omitted from the middle …\]/);
    expect(long.content).toMatch(/\[full output saved at \/tmp\/switchboard-output\/[0-9a-f]{16}\.txt\]/);
    const [, kept] = /^exit code 0\n([\s\S]*)\n\[output truncated\]/.exec(long.content)!;
    expect(kept.replace(/\n\[… output truncated[^\n]*\n/, '').length).toBeLessThanOrEqual(BASH_OUTPUT_LIMIT);
  });

  it('fleet_status: the person’s work running and ended alike, each with its status', async () => {
    const requester = `fleet-${randomUUID().slice(0, 8)}`;
    const quick = kit.script('promises-quick', [{ text: 'Done.' }]);
    const slow = kit.script('promises-slow', [{ text: 'Thinking.', delayMs: 120_000 }]);
    const ended = await kit.start('say done', { requester, model: quick });
    await kit.result(ended.runId);
    const running = await kit.start('think slowly', { requester, model: slow });
    const units = createUnitClientActivities({ client: kit.client, taskQueue: kit.taskQueue });
    const ctx = context(
      'orchestrator',
      { units: units as unknown as ExecutorActivities['units'] },
      { requester: { id: requester, surface: 'cli' } },
    );
    const rows = await waitUntil(
      async () =>
        JSON.parse((await EXECUTORS.fleet_status(ctx, call('fleet_status', {}), { kind: 'run' })).content) as Array<{
          unitId: string;
          status: string;
          ageMinutes?: number;
        }>,
      (listed) => listed.length === 2 && listed.some((row) => row.status === 'RUNNING'),
      60_000,
    ).catch(() => undefined);
    expect(rows?.map((row) => [row.unitId, row.status]).sort()).toEqual(
      [
        [ended.runId, 'COMPLETED'],
        [running.runId, 'RUNNING'],
      ].sort(),
    );
    expect(description('fleet_status')).toContain('running and ended alike');
    expect(description('fleet_status')).toContain('(RUNNING, COMPLETED, TERMINATED, …)');
    expect(rows!.every((row) => row.ageMinutes !== undefined)).toBe(true);
    await kit.client.workflow.getHandle(running.threadId).terminate('test over');
  });

  it("submit_description and submit_dispositions: in a unit's run, recorded for the unit, which pushes and posts after the run", async () => {
    const unit = context('coding', {}, { submitsTo: 'unit', findings: [{ id: 'F1', title: 'T' }] });
    const described = await EXECUTORS.submit_description(unit, call('submit_description', {}), { title: 'T', body: 'B' });
    expect(description('submit_description')).toContain(
      "In a ship unit's coding run it is recorded: when the run ends the unit commits, pushes and opens its pull request",
    );
    expect(described.content).toMatch(
      /^Description recorded\. When this run ends, the ship unit commits what is left, pushes the branch and opens the pull request/,
    );
    expect(unit.state.submissions.submit_description).toEqual({ title: 'T', body: 'B' });
    expect(description('submit_dispositions')).toContain("the unit posts each answer as a reply in that finding's review thread");
    const answered = await EXECUTORS.submit_dispositions(unit, call('submit_dispositions', {}), {
      dispositions: [{ finding: 'F1', disposition: 'fixed', text: 'Done.' }],
    });
    expect(answered.content).toContain("posts each answer as a reply in its finding's thread");
    // Elsewhere there is nothing to answer, as the description says.
    expect(description('submit_dispositions')).toContain('In any other run there is nothing to answer and the call is refused');
    const direct = await EXECUTORS.submit_dispositions(context('coding', {}), call('submit_dispositions', {}), {
      dispositions: [{ finding: 'F1', disposition: 'fixed', text: 'Done.' }],
    });
    expect(direct.isError).toBe(true);
  });

  it("update_status: the checklist it takes is the one the run's status (the cards' and the page's source) carries", async () => {
    expect(description('update_status')).toContain('optionally, a checklist of steps');
    const ctx = context('coding', {});
    const steps = [{ title: 'One', state: 'done' as const }];
    await EXECUTORS.update_status(ctx, call('update_status', {}), { summary: 'Working', steps });
    expect(ctx.state.status('r', 0)).toMatchObject({ statusText: 'Working', steps });
  });
});
