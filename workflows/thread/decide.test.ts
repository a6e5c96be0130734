import { boardPolicy, builtinCatalog } from '../../agents';
import { defaultAgentsConfig } from '../../agents/config';
import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import type { ThreadMessage } from '../contracts';
import { decide } from './decide';

const setup = (config = {}, allowedModels?: string[]) => ({
  catalog: builtinCatalog(),
  config: defaultAgentsConfig(config),
  ship: DEFAULT_SHIP_SETTINGS,
  ...(allowedModels ? { allowedModels } : {}),
});
const message = (text: string, extra: Partial<ThreadMessage> = {}): ThreadMessage => ({
  messageId: 'm1',
  text,
  requester: { id: 'ada', surface: 'slack' },
  channelId: 'C1',
  ...extra,
});

describe('what a thread does with a message', () => {
  it('runs the explicit agent, makes it sticky, and resolves its profile and prompt', () => {
    const decision = decide(setup(), message('agent:explore budget:30 in acme/app: why is CI slow?'), undefined);
    expect(decision).toMatchObject({ kind: 'run', agent: 'explore', stickyAgent: 'explore', request: 'why is CI slow?' });
    if (decision.kind !== 'run') throw new Error('expected a run');
    expect(decision.profile.budget).toMatchObject({ minutes: 30, boundedBy: 'directive' });
    expect(decision.profile.repo).toEqual({ value: 'acme/app', chosenBy: 'directive' });
    expect(decision.system).toContain('explore');
  });

  it('keeps the sticky agent for a follow-up', () => {
    expect(decide(setup(), message('and the tests?'), 'explore')).toMatchObject({ kind: 'run', agent: 'explore', stickyAgent: 'explore' });
  });

  it('sends a plain code change to a ship unit', () => {
    expect(decide(setup(), message('in acme/app: fix the login redirect bug'), undefined)).toMatchObject({
      kind: 'ship',
      request: 'fix the login redirect bug',
    });
  });

  it("answers an unknown agent with the agents the person may use, and keeps the thread's agent", () => {
    const decision = decide(setup(), message('agent:wizard do magic'), 'explore');
    expect(decision).toMatchObject({ kind: 'refused', stickyAgent: 'explore' });
    expect(decision.kind === 'refused' && decision.reply).toMatch(/There is no agent called "wizard"\. You may use: general, .*explore/);
  });

  it('refuses an agent the channel does not allow, naming the rule', () => {
    const decision = decide(setup({ channels: { C1: { allowedAgents: ['general'] } } }), message('agent:explore look'), undefined);
    expect(decision.kind === 'refused' && decision.reply).toMatch(/channels\.C1\.allowedAgents/);
  });

  it("names why it refused with a stable code, and applies the requester's token grant and self-serve flag", () => {
    expect(decide(setup(), message('agent:wizard do magic'), undefined)).toMatchObject({ kind: 'refused', code: 'agent_unknown' });
    expect(decide(setup(), message('agent:explore'), undefined)).toMatchObject({ kind: 'refused', code: 'request_missing' });
    const granted = message('agent:explore look', {
      requester: { id: 'ada', surface: 'http', grant: { agents: ['general'], rule: 'api.tokens.t.agents' } },
    });
    expect(decide(setup(), granted, undefined)).toMatchObject({ kind: 'refused', code: 'token_grant' });
    const selfServe = message('agent:explore look', { requester: { id: 'ada', surface: 'mcp', selfServe: true } });
    expect(decide(setup(), selfServe, undefined)).toMatchObject({ kind: 'refused', code: 'self_serve_shell' });
  });

  it("uses the surface's implied agent only when it is available", () => {
    const dm = message('what is running?', { defaultAgent: 'orchestrator' });
    expect(decide(setup(), dm, undefined)).toMatchObject({ kind: 'run', agent: 'general' });
    expect(decide(setup({ featureFlags: { orchestrator: true } }), dm, undefined)).toMatchObject({ kind: 'run', agent: 'orchestrator' });
  });

  describe('a model: directive', () => {
    it('may name the configured default, in either spelling', () => {
      for (const text of ['model:claude-sonnet-4-6 hi', 'model:anthropic:claude-sonnet-4-6 hi']) {
        expect(decide(setup(), message(text), undefined)).toMatchObject({ kind: 'run' });
      }
    });

    it('is refused in words when the model is not allowed, keeping the thread as it was', () => {
      const decision = decide(setup(), message('model:anthropic:claude-opus-4-1 hi'), 'explore');
      expect(decision).toMatchObject({ kind: 'refused', stickyAgent: 'explore' });
      expect(decision.kind === 'refused' && decision.reply).toMatch(
        /model anthropic:claude-opus-4-1 is not one a message may choose.*anthropic:claude-sonnet-4-6/,
      );
    });

    it('follows models.allowed when configured, patterns included', () => {
      const configured = setup({}, ['openai:*', 'scripted:examples/*']);
      expect(decide(configured, message('model:openai:gpt-4.1 hi'), undefined)).toMatchObject({ kind: 'run' });
      expect(decide(configured, message('model:scripted:examples/hello.yaml hi'), undefined)).toMatchObject({ kind: 'run' });
      expect(decide(configured, message('model:claude-sonnet-4-6 hi'), undefined)).toMatchObject({ kind: 'refused' });
    });

    it.each(['scripted:/etc/passwd', 'scripted:../../x.yaml', 'scripted:examples/../../x.yaml'])(
      'refuses %s from every surface, even an operator allowing scripted:*',
      (model) => {
        for (const surface of ['slack', 'github', 'cli'] as const) {
          const decision = decide(
            setup({}, ['scripted:*']),
            message(`model:${model} hi`, { requester: { id: 'ada', surface, ...(surface === 'github' ? { githubRole: 'admin' } : {}) } }),
            undefined,
          );
          expect(decision.kind === 'refused' && decision.reply).toMatch(/I did not use the model .*(absolute path|climbs out)/);
        }
      },
    );

    it('leaves the choice to the operator on the CLI', () => {
      const cli = message('model:scripted:examples/hello.yaml hi', { requester: { id: 'ada', surface: 'cli' } });
      expect(decide(setup(), cli, undefined)).toMatchObject({ kind: 'run' });
    });
  });

  it('refuses a shell agent, and a ship request, with the fix when the worker cannot isolate commands; a shell-less agent still runs', () => {
    const fix = 'install bubblewrap and util-linux on the worker host';
    const missing = { ...setup(), sandbox: { mode: 'unavailable' as const, ready: false, reason: 'bwrap is not installed', fix } };
    for (const text of ['agent:explore why is CI slow?', 'in acme/app: fix the login redirect bug']) {
      const decision = decide(missing, message(text), undefined);
      expect(decision.kind).toBe('refused');
      expect(decision.kind === 'refused' && decision.reply).toMatch(
        /cannot isolate shell commands right now \(bwrap is not installed\).*install bubblewrap/,
      );
    }
    expect(decide(missing, message('agent:general hello'), undefined)).toMatchObject({ kind: 'run', agent: 'general' });
    const unisolated = { ...setup(), sandbox: { mode: 'unisolated' as const, ready: true } };
    expect(decide(unisolated, message('agent:explore look'), undefined)).toMatchObject({ kind: 'run', agent: 'explore' });
  });
});

describe('tools the deployment cannot run', () => {
  const backends = {
    webSearch: { on: true as const, provider: 'searxng' },
    webFetch: true,
    skillFolders: false,
    github: true,
    slack: true,
  };

  it('offers attach_file in a Slack thread, and not to a CLI caller, who is told why', () => {
    const withSetup = { ...setup(), backends };
    const slack = decide(withSetup, message('agent:coding add a test'), undefined, {
      kind: 'slack',
      team: 'T',
      channel: 'C1',
      threadTs: '1.0',
    });
    const cli = decide(withSetup, message('agent:coding add a test'), undefined, { kind: 'cli' });
    expect(slack.kind === 'run' && slack.profile.tools).toContain('attach_file');
    expect(cli.kind === 'run' && cli.profile.tools).not.toContain('attach_file');
    expect(cli.kind === 'run' && cli.system).toContain('attach_file (this conversation (cli) has no thread to post a file to');
  });

  it('filters nothing for a setup recorded before backends were reported', () => {
    const decision = decide(setup(), message('agent:coding add a test'), undefined, { kind: 'cli' });
    expect(decision.kind === 'run' && decision.profile.tools).toContain('attach_file');
  });
});

describe('a GitHub conversation', () => {
  const onPr = { kind: 'github' as const, repo: 'acme/app', pullRequest: 7 };
  const github = (text: string, githubRole?: 'read' | 'triage' | 'write') =>
    message(text, { requester: { id: 'github:ana', surface: 'github', ...(githubRole ? { githubRole } : {}) } });

  it("admits by the actor's role on the repository the door read from GitHub, and by nothing when it read none", () => {
    expect(decide(setup(), github('agent:general what is this?', 'write'), undefined, onPr)).toMatchObject({ kind: 'run' });
    expect(decide(setup(), github('agent:general what is this?', 'triage'), undefined, onPr)).toMatchObject({
      kind: 'refused',
      code: 'actor_permission',
    });
    expect(decide(setup(), github('agent:general what is this?'), undefined, onPr)).toMatchObject({ code: 'actor_unverified' });
    // A history decided before the rule replays as it was.
    expect(decide(setup(), github('agent:general what is this?'), undefined, onPr, ['github_actor'])).toMatchObject({ kind: 'run' });
  });

  it('answers a review asked on a plain issue with what it needs, and sends a change there to a ship unit', () => {
    const onIssue = { ...onPr, issue: true };
    expect(decide(setup(), github('agent:review look', 'write'), undefined, onIssue)).toMatchObject({
      kind: 'refused',
      code: 'needs_pull_request',
      reply: expect.stringContaining('works on a pull request, and this is an issue'),
    });
    expect(decide(setup(), github('agent:review look', 'write'), undefined, onPr)).toMatchObject({ kind: 'run', agent: 'review' });
    expect(decide(setup(), github('fix the login redirect bug', 'write'), undefined, onIssue)).toMatchObject({ kind: 'ship' });
  });
});

describe('slash commands and team boards in the decision', () => {
  const commands = { rules: true, commands: true };
  const slackThread = { kind: 'slack' as const, team: 'T1', channel: 'C1', threadTs: '1.0' };

  it('/review runs code-review once on the pull request, and the thread keeps its own agent', () => {
    const onPr = { kind: 'github' as const, repo: 'acme/app', pullRequest: 7 };
    const decision = decide(
      setup(),
      message('/review', { requester: { id: 'ada', surface: 'github', githubRole: 'write' } }),
      'general',
      onPr,
      [],
      commands,
    );
    expect(decision).toMatchObject({
      kind: 'run',
      agent: 'code-review',
      request: 'Review pull request #7 of acme/app.',
      stickyAgent: 'general',
    });
  });

  it('/research runs the conductor as a research lead; /board and /subconscious run are the thread’s to answer', () => {
    expect(decide(setup(), message('/research why?'), undefined, slackThread, [], commands)).toMatchObject({
      kind: 'run',
      agent: 'conductor',
      request: expect.stringMatching(/^Research lead \(\/research\)[\s\S]*Question: why\?$/),
    });
    expect(decide(setup(), message('in acme/app: /board keep b2'), 'explore', slackThread, [], commands)).toEqual({
      kind: 'board',
      command: { kind: 'board', action: 'keep', entryId: 'b2' },
      stickyAgent: 'explore',
    });
    expect(decide(setup(), message('/subconscious run'), undefined, slackThread, [], commands)).toMatchObject({ kind: 'board' });
    expect(decide(setup(), message('/nope'), undefined, slackThread, [], commands)).toMatchObject({
      kind: 'refused',
      code: 'command_unknown',
    });
    // Threads recorded before commands read them as text.
    expect(decide(setup(), message('agent:general /board'), undefined, slackThread, [], { rules: true })).toMatchObject({
      kind: 'run',
      request: '/board',
    });
  });

  it("a run in a Slack channel whose board is on, on no repository, reads the channel's board", () => {
    const boards = {
      ...setup(),
      channelBoards: { C1: { ...boardPolicy('board:slack:*:C1', undefined, { enabled: true, maxPromptChars: 900 }) } },
    };
    expect(decide(boards, message('agent:general hi'), undefined, slackThread, [], commands)).toMatchObject({
      kind: 'run',
      board: { id: 'board:slack:T1:C1', maxPromptChars: 900 },
    });
    // On a repository the run reads the repository's board instead (found from its settings by the run).
    const onRepo = decide(boards, message('agent:general in acme/app: hi'), undefined, slackThread, [], commands);
    expect(onRepo.kind === 'run' && onRepo.board).toBeUndefined();
  });
});
