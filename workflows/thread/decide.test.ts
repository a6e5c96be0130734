import { builtinCatalog, defaultAgentsConfig } from '../../agents';
import { DEFAULT_SHIP_SETTINGS } from '../../activities/agents/agent-setup';
import type { ThreadMessage } from '../thread-types';
import { decide } from './decide';

const setup = (config = {}) => ({ catalog: builtinCatalog(), config: defaultAgentsConfig(config), ship: DEFAULT_SHIP_SETTINGS });
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

  it("uses the surface's implied agent only when it is available", () => {
    const dm = message('what is running?', { defaultAgent: 'orchestrator' });
    expect(decide(setup(), dm, undefined)).toMatchObject({ kind: 'run', agent: 'general' });
    expect(decide(setup({ featureFlags: { orchestrator: true } }), dm, undefined)).toMatchObject({ kind: 'run', agent: 'orchestrator' });
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
