import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolCall } from '../../contracts/model';
import { builtinCatalog, getAgent, resolveProfile } from '../../../agents';
import { defaultAgentsConfig, type AgentsConfigInput } from '../../../agents/config';
import { DEFAULT_SHIP_SETTINGS } from '../../../activities/agents/agent-setup';
import { getTool, TOOL_NAMES } from '../../../tools';
import { steerSignal, type RunInput, type UnitState } from '../../contracts';
import { CallLog, FakeClock } from '../../test-support';
import { RunState } from '../run-state';
import { executeToolCalls } from '../tool-dispatch';
import { EXECUTORS, type ExecutorActivities, type ToolContext } from '.';

function context(
  agent: string,
  options: {
    unitRequester?: string;
    bashFails?: boolean;
    jobDoneAfter?: number;
    webFails?: boolean;
    attach?: 'confirmed' | 'unconfirmed';
    /** Where the run answers (default the CLI) and who asked (default ada on the CLI). */
    replyTarget?: RunInput['replyTarget'];
    requester?: RunInput['requester'];
    /** The agents config the unit tools' admission reads. */
    agents?: AgentsConfigInput;
    /** A unit already running under the id unit_start names (absent: none). */
    existingUnit?: Partial<UnitState>;
    /** The unit's conversation (`UnitState.threadId`). */
    unitThread?: string;
    /** More of the run's input (a unit's coding round: `submitsTo`, `findings`). */
    input?: Partial<RunInput>;
  } = {},
) {
  const clock = new FakeClock();
  const log = new CallLog();
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
    requester: options.requester ?? { id: 'ada', surface: 'cli' },
    context: [],
    replyTarget: options.replyTarget ?? { kind: 'cli' },
    ...options.input,
  };
  const state = new RunState(input, clock.now());
  let polls = 0;
  const activities = {
    shell: {
      bash: log.fn('bash', (request: { command: string }) => {
        if (options.bashFails) throw new Error('worker lost');
        return { exitCode: 0, output: `ran ${request.command}`, truncated: false, timedOut: false };
      }),
    },
    files: {
      readFile: log.fn('readFile', () => ({ ok: true, path: 'a.txt', bytes: 2, content: 'hi', truncated: false })),
      writeFile: log.fn('writeFile', () => ({ ok: true, path: 'a.txt', bytes: 2 })),
      jobStatus: log.fn('jobStatus', () => ((polls += 1) > (options.jobDoneAfter ?? 1) ? { done: true, exitCode: 0 } : { done: false })),
    },
    githubReads: {
      githubIssueGet: log.fn('githubIssueGet', () => ({ number: 4, title: 'Bug' })),
      githubPullGet: log.fn('githubPullGet', () => ({
        number: 7,
        title: 'Feature',
        headSha: 'abc',
        files: [{ path: 'a.ts', patch: '+x' }],
      })),
      githubCommitChecks: log.fn('githubCommitChecks', () => ({
        sha: 'abc',
        overall: 'failure',
        checkRuns: [{ name: 'ci', status: 'completed', conclusion: 'failure' }],
        statuses: [],
      })),
      githubPullActivity: log.fn('githubPullActivity', () => ({
        reviews: [{ id: 1, author: 'bo', state: 'CHANGES_REQUESTED', body: 'fix it', commitId: 'abc' }],
        reviewComments: [],
        comments: [{ id: 2, author: 'ana', body: 'ping' }],
      })),
    },
    githubWrites: {
      postComment: log.fn('postComment', (request: { effectKey: string }) => ({
        status: 'confirmed',
        effectKey: request.effectKey,
        url: 'u',
      })),
    },
    web: {
      webFetch: log.fn('webFetch', ({ url }: { url: string }) => ({
        ok: true,
        url: `${url}/`,
        status: 200,
        kind: 'html',
        title: 'Example',
        text: 'Hello there.',
        truncated: false,
        bytes: 12,
        redirects: [],
      })),
      webSearch: log.fn('webSearch', () => {
        if (options.webFails) throw Object.assign(new Error('Activity task failed'), { cause: { message: 'provider down' } });
        return { ok: true, provider: 'searxng', query: 'temporal', results: [] };
      }),
    },
    skills: {
      listSkills: log.fn('listSkills', () => ({
        skills: [{ name: 'deploy', description: 'How we deploy', source: 'config' }],
        problems: [],
      })),
    },
    attach: {
      attachFile: log.fn('attachFile', () => ({ status: options.attach ?? 'confirmed', reason: 'the upload answer was lost' })),
    },
    units: {
      inspectUnit: log.fn('inspectUnit', ({ unitId }: { unitId: string }) => {
        if (unitId.endsWith(':new-unit')) {
          if (!options.existingUnit) throw new Error(`unit ${unitId} cannot be inspected: not found`);
          return { unitId, requester: 'mallory', ...options.existingUnit } as UnitState;
        }
        return {
          unitId,
          requester: options.unitRequester ?? 'ada',
          ...(options.unitThread ? { threadId: options.unitThread } : {}),
        } as UnitState;
      }),
      startUnit: log.fn('startUnit', ({ unitId }: { unitId: string }) => ({ unitId, status: 'started' })),
    },
    setup: {
      loadAgentSetup: log.fn('loadAgentSetup', () => ({
        catalog: builtinCatalog(),
        config: defaultAgentsConfig({ featureFlags: { orchestrator: true }, ...options.agents }),
        ship: DEFAULT_SHIP_SETTINGS,
      })),
    },
  } as unknown as ExecutorActivities;
  const signals: Array<{ workflowId: string; name: string; args: unknown[] }> = [];
  const ctx: ToolContext = {
    state,
    workspace: { key: 't', network: true },
    activities,
    touchCard: () => undefined,
    runTask: () => Promise.reject(new Error('no tasks here')),
    waitForTask: () => Promise.reject(new Error('no tasks here')),
    remainingMs: () => state.remainingMs(clock.now()),
    sleep: async (ms) => {
      clock.time += ms;
    },
    signal: async (workflowId, definition, ...args) => {
      signals.push({ workflowId, name: definition.name, args });
    },
    effectKey: (call) => `run:t:1/${call.name}/0.${call.id}`,
  };
  return { ctx, log, signals, clock };
}

const call = (id: string, name: string, input: unknown): ToolCall => ({ id, name, input });

describe('the executor map', () => {
  it('has exactly one executor per tool in the registry', () => {
    expect(Object.keys(EXECUTORS).sort()).toEqual([...TOOL_NAMES].sort());
  });
});

describe('executeToolCalls', () => {
  it('refuses a tool outside the toolset without executing it, and answers bad input as data', async () => {
    const { ctx, log } = context('explore');
    const results = await executeToolCalls(ctx, [call('1', 'write_file', { path: 'x', content: 'y' }), call('2', 'bash', {})]);
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringContaining('not available to this run (agent explore)') });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringContaining('bash: command') });
    expect(log.names()).toEqual([]);
  });

  it('runs the workspace tools on the run workspace and reports a lost command as unknown, not failed twice', async () => {
    const { ctx, log } = context('coding');
    const results = await executeToolCalls(ctx, [call('1', 'grep', { pattern: 'TODO' }), call('2', 'read_file', { path: 'a.txt' })]);
    expect(results.map((result) => result.isError ?? false)).toEqual([false, false]);
    expect(log.inputs<{ command: string }>('bash')[0].command).toContain("-e 'TODO'");
    const lost = await executeToolCalls(context('coding', { bashFails: true }).ctx, [call('3', 'bash', { command: 'make' })]);
    expect(lost[0]).toMatchObject({ isError: true, content: expect.stringContaining('It may or may not have run') });
  });

  it('reads GitHub with the read identity and writes with the run identity and its effect key', async () => {
    const { ctx, log } = context('general');
    const results = await executeToolCalls(ctx, [
      call('1', 'github_issue_get', { repo: 'acme/app', number: 4 }),
      call('2', 'github_issue_comment', { repo: 'acme/app', number: 4, body: 'hi' }),
    ]);
    expect(results[0].content).toContain('"title": "Bug"');
    expect(results[1].content).toBe('Comment posted: u.');
    expect(log.inputs('githubIssueGet')[0]).toEqual({ identity: 'read', repo: 'acme/app', number: 4 });
    expect(log.inputs('postComment')[0]).toMatchObject({
      identity: ctx.state.input.profile.identity,
      effectKey: 'run:t:1/github_issue_comment/0.2',
    });
  });

  it('answers github_pull_get with what its description names: checks, reviews, comments and the files with their diff', async () => {
    const { ctx, log } = context('general');
    const [result] = await executeToolCalls(ctx, [call('1', 'github_pull_get', { repo: 'acme/app', number: 7 })]);
    const answer = JSON.parse(result.content) as Record<string, unknown>;
    for (const [words, field] of [
      ['title', 'title'],
      ["the head commit's checks", 'checks'],
      ['reviews', 'reviews'],
      ['comments', 'comments'],
      ['changed files with their diff', 'files'],
    ] as const) {
      expect(getTool('github_pull_get')!.description).toContain(words);
      expect(answer[field]).toBeDefined();
    }
    expect(answer.checks).toMatchObject({ overall: 'failure' });
    expect(log.inputs('githubCommitChecks')[0]).toEqual({ identity: 'read', repo: 'acme/app', ref: 'abc' });
    // A run recorded before it answered with the pull request alone.
    ctx.patched = () => false;
    const [old] = await executeToolCalls(ctx, [call('2', 'github_pull_get', { repo: 'acme/app', number: 7 })]);
    expect(JSON.parse(old.content)).not.toHaveProperty('checks');
  });

  it('lists files newest first and marks folders, as find_files and list_directory say', async () => {
    const { ctx, log } = context('coding');
    await executeToolCalls(ctx, [call('1', 'find_files', { glob: '*.ts' }), call('2', 'list_directory', {})]);
    const [find, ls] = log.inputs<{ command: string }>('bash').map((entry) => entry.command);
    expect(getTool('find_files')!.description).toContain('newest first');
    expect(find).toContain("-printf '%T@ %P\\n' | sort -k1,1nr");
    expect(getTool('list_directory')!.description).toContain('trailing slash');
    expect(ls).toBe("ls -lap '.'");
  });

  it("steers the person's own unit by signal and refuses someone else's", async () => {
    const own = context('orchestrator');
    const steered = await executeToolCalls(own.ctx, [call('1', 'unit_steer', { unitId: 'unit:acme/app#4', text: 'also French' })]);
    expect(steered[0].content).toBe("Sent to unit:acme/app#4; it joins the unit's next coding round.");
    expect(own.signals).toEqual([{ workflowId: 'unit:acme/app#4', name: steerSignal.name, args: [{ text: 'also French', by: 'ada' }] }]);

    const other = context('orchestrator', { unitRequester: 'mallory' });
    const refused = await executeToolCalls(other.ctx, [call('1', 'unit_stop', { unitId: 'unit:acme/app#4', reason: 'mine now' })]);
    expect(refused[0]).toMatchObject({ isError: true, content: expect.stringContaining('is not one of your linked units') });
    expect(other.signals).toEqual([]);
  });

  it("refuses every unit tool outside the person's own DM (a channel thread, the API), and runs them in a DM", async () => {
    const channel = { kind: 'slack' as const, team: 'T1', channel: 'C1', threadTs: '1.0' };
    const dm = { kind: 'slack' as const, team: 'T1', channel: 'D1', threadTs: '1.0' };
    const slackAda = { id: 'U0ADA', surface: 'slack' as const };
    for (const [replyTarget, requester] of [
      [channel, slackAda],
      [{ kind: 'api' as const }, { id: 'ada', surface: 'http' as const }],
    ] as const) {
      const { ctx, log, signals } = context('orchestrator', { replyTarget, requester, unitRequester: requester.id });
      const results = await executeToolCalls(ctx, [
        call('1', 'unit_start', { repo: 'acme/app', request: 'Add a greeting', slug: 'new-unit' }),
        call('2', 'unit_inspect', { unitId: 'unit:acme/app#4' }),
        call('3', 'unit_steer', { unitId: 'unit:acme/app#4', text: 'also French' }),
        call('4', 'unit_stop', { unitId: 'unit:acme/app#4', reason: 'done' }),
      ]);
      for (const result of results) expect(result).toMatchObject({ isError: true, content: expect.stringContaining('private DM') });
      expect(log.names()).toEqual([]);
      expect(signals).toEqual([]);
    }
    const inDm = context('orchestrator', { replyTarget: dm, requester: slackAda, unitRequester: 'U0ADA' });
    const [started, steered] = await executeToolCalls(inDm.ctx, [
      call('1', 'unit_start', { repo: 'acme/app', request: 'Add a greeting', slug: 'new-unit' }),
      call('2', 'unit_steer', { unitId: 'unit:acme/app#4', text: 'also French' }),
    ]);
    expect(started.content).toBe('Started unit:acme/app:new-unit.');
    expect(steered.content).toBe("Sent to unit:acme/app#4; it joins the unit's next coding round.");
  });

  it('admits unit_start as ship for the person, and never steers a running unit that is neither theirs nor linked here', async () => {
    const start = call('1', 'unit_start', { repo: 'acme/app', request: 'Add a greeting', slug: 'new-unit' });
    const restricted = context('orchestrator', { agents: { restrict: { agents: { ship: ['bob'] } } } });
    const [refused] = await executeToolCalls(restricted.ctx, [start]);
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining('(agent_restricted)') });
    expect(restricted.log.names()).toEqual(['loadAgentSetup']);

    const taken = context('orchestrator', { existingUnit: { requester: 'mallory' } });
    const [steal] = await executeToolCalls(taken.ctx, [start]);
    expect(steal).toMatchObject({ isError: true, content: expect.stringContaining('is not one of your linked units') });
    expect(taken.log.names()).not.toContain('startUnit');

    // A unit started from this very conversation is linked here, whoever asked for it.
    const linked = context('orchestrator', { unitRequester: 'mallory', unitThread: 't' });
    const [steered] = await executeToolCalls(linked.ctx, [call('2', 'unit_steer', { unitId: 'unit:acme/app#4', text: 'go on' })]);
    expect(steered.content).toBe("Sent to unit:acme/app#4; it joins the unit's next coding round.");

    // Steering is a message to ship: a person no longer admitted for it is refused.
    const revoked = context('orchestrator', { agents: { grants: { people: { ada: { agents: ['orchestrator'] } } } } });
    const [steer] = await executeToolCalls(revoked.ctx, [call('3', 'unit_steer', { unitId: 'unit:acme/app#4', text: 'go on' })]);
    expect(steer).toMatchObject({ isError: true, content: expect.stringContaining('(person_grant)') });
    expect(revoked.signals).toEqual([]);
  });

  it('polls a detached job on workflow timers until it writes its exit file', async () => {
    const { ctx, clock } = context('explore', { jobDoneAfter: 2 });
    const [result] = await executeToolCalls(ctx, [call('1', 'wait_for_job', { exitFile: '/tmp/job.exit', pollSeconds: 30 })]);
    expect(result.content).toBe('The job finished with exit code 0 after 3 checks.');
    expect(clock.time - Date.UTC(2026, 0, 1)).toBe(60_000);
    expect(ctx.state.jobWaits).toEqual({ polls: 3, waitedMs: 60_000 });
  });

  it('fetches and searches the web, and a skill read on a run with no machine names no workspace', async () => {
    const { ctx, log } = context('general');
    const [page, skills] = await executeToolCalls(ctx, [
      call('1', 'web_fetch', { url: 'https://example.com' }),
      call('2', 'list_skills', {}),
    ]);
    expect(page.content).toBe('# Example\nSource: https://example.com/ [HTTP 200, html, 12 bytes]\n\nHello there.');
    expect(skills.content).toBe('Skills (load one with use_skill and its name):\n- deploy: How we deploy (configured)');
    expect(log.inputs('listSkills')[0]).toEqual({});
    const research = context('research', { webFails: true });
    const [search] = await executeToolCalls(research.ctx, [call('1', 'web_search', { query: 'temporal' })]);
    expect(search).toMatchObject({ isError: true, content: 'web_search failed: provider down' });
  });

  it("attaches a file to the run's conversation with the call's effect key, and never claims an unconfirmed post", async () => {
    const { ctx, log } = context('coding', { attach: 'unconfirmed' });
    const [result] = await executeToolCalls(ctx, [call('1', 'attach_file', { path: 'out/report.md' })]);
    expect(log.inputs('attachFile')[0]).toMatchObject({
      workspace: ctx.workspace,
      path: 'out/report.md',
      effectKey: 'run:t:1/attach_file/0.1',
      replyTarget: { kind: 'cli' },
    });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('could not be confirmed') });
    expect(result.content).toContain('Do not say it is attached');
  });
});

describe('the results a unit reads (issue 33)', () => {
  const findings = [
    { id: 'F1', title: 'No greeting' },
    { id: 'F2', title: 'Shouting' },
  ];
  const answer = (finding: string, disposition: string, extra: Record<string, unknown> = {}) => ({
    finding,
    disposition,
    text: 'Because.',
    ...extra,
  });

  it('records dispositions only when they answer every open finding exactly once; problems go back to the model as data', async () => {
    const { ctx } = context('coding', { input: { submitsTo: 'unit', findings } });
    const [missing, unknown, twice, noReason] = await executeToolCalls(ctx, [
      call('1', 'submit_dispositions', { dispositions: [answer('F1', 'fixed')] }),
      call('2', 'submit_dispositions', { dispositions: [answer('F1', 'fixed'), answer('F2', 'fixed'), answer('F9', 'fixed')] }),
      call('3', 'submit_dispositions', { dispositions: [answer('F1', 'fixed'), answer('F1', 'question'), answer('F2', 'fixed')] }),
      call('4', 'submit_dispositions', { dispositions: [answer('F1', 'fixed'), answer('F2', 'declined')] }),
    ]);
    expect(missing).toMatchObject({ isError: true, content: expect.stringContaining('F2 has no answer') });
    expect(unknown).toMatchObject({ isError: true, content: expect.stringContaining('F9 is not an open finding of this round') });
    expect(twice).toMatchObject({ isError: true, content: expect.stringContaining('F1 is answered more than once') });
    expect(noReason).toMatchObject({ isError: true, content: expect.stringContaining('F2 is declined without a reason') });
    expect(ctx.state.submissions.submit_dispositions).toBeUndefined();
    const [recorded] = await executeToolCalls(ctx, [
      call('5', 'submit_dispositions', {
        dispositions: [answer('F1', 'fixed', { commit: 'abc1234' }), answer('F2', 'declined', { reason: 'out_of_scope' })],
      }),
    ]);
    expect(recorded.isError).toBeFalsy();
    expect(recorded.content).toMatch(/^Dispositions recorded \(1 fixed, 1 declined, 0 question\)\. When this run ends, the ship unit/);
    expect(ctx.state.submissions.submit_dispositions).toMatchObject({ dispositions: [{ finding: 'F1' }, { finding: 'F2' }] });
  });

  it('refuses dispositions in a run with nothing to answer, and says where a handoff goes', async () => {
    const { ctx } = context('coding');
    const [refused, handoff] = await executeToolCalls(ctx, [
      call('1', 'submit_dispositions', { dispositions: [answer('F1', 'fixed')] }),
      call('2', 'submit_handoff', { done: 'A', left: 'B', reason: 'blocker', why: 'C', needs: 'D' }),
    ]);
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining('no open findings to answer') });
    expect(handoff.content).toContain("recorded in this run's record only");
    const unit = context('coding', { input: { submitsTo: 'unit' } });
    const [inUnit] = await executeToolCalls(unit.ctx, [
      call('1', 'submit_handoff', { done: 'A', left: 'B', reason: 'blocker', why: 'C', needs: 'D' }),
    ]);
    expect(inUnit.content).toContain('settles handed_off');
  });

  it('keeps the checklist update_status sets, for the cards and the session page', async () => {
    const { ctx } = context('coding');
    const steps = [
      { title: 'Reproduce', state: 'done' },
      { title: 'Fix', state: 'running' },
    ];
    const [result] = await executeToolCalls(ctx, [call('1', 'update_status', { summary: 'Fixing', steps })]);
    expect(result.content).toBe('Status card updated, with a checklist of 2 steps.');
    expect(ctx.state.status('r', 0)).toMatchObject({ statusText: 'Fixing', steps });
    // A summary alone keeps the checklist it had.
    await executeToolCalls(ctx, [call('2', 'update_status', { summary: 'Testing' })]);
    expect(ctx.state.status('r', 0).steps).toEqual(steps);
    expect(ctx.state.carry().steps).toEqual(steps);
  });
});

describe('no hollow tools', () => {
  const ROOT = join(__dirname, '..', '..', '..');
  const sources = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
    });

  it('leaves no "not connected" stub anywhere in the run path', () => {
    for (const file of ['workflows', 'tools', 'activities', 'agents'].flatMap(sources)) {
      expect([file, /not connected/i.test(readFileSync(join(ROOT, file), 'utf8'))]).toEqual([file, false]);
    }
  });
});
