import type { ToolCall, ToolResult } from '../contracts/model';
import type { VetRepositoryInput, VetRepositoryResult } from '../contracts/github';
import type { Profile } from '../contracts/profile';
import type { McpAdmission } from '../contracts/mcp';
import {
  admitStart,
  buildSystemPrompt,
  definitionOf,
  MAX_TASK_DEPTH,
  modelCheck,
  modelFamily,
  resolveAgentChildProfile,
  resolveRoleProfile,
  resolveTaskTarget,
  type Person,
} from '../../agents';
import type { ToolInput } from '../../tools';
import type { SetupActivities } from '../activity-proxies';
import type { ChildRecord, RunInput, RunRecord, SpendCap } from '../contracts';
import type { RunControl, WorkflowClock } from './run-control';
import type { RunState } from './run-state';
import { needsVetting, vetInput, vetRefusalText } from '../thread/vet';
import { inheritedConversation } from './context-window';

export { MAX_TASK_DEPTH };

/**
 * The `patched()` id of `debug` inheriting the parent's conversation with its tool calls and
 * results (bounded to fit its model). Runs recorded before it gave the child the words only.
 */
export const DEBUG_INHERITS_TOOL_RESULTS = 'debug-inherits-tool-results';

/**
 * The `patched()` id of agent children running in a session of their own (their machine class,
 * identity and tools, vetted first). Runs recorded before it gave an agent child the parent's.
 */
export const AGENT_CHILD_OWN_SESSION = 'agent-child-own-session';

/**
 * The `patched()` id of an agent child of a GitHub-started run admitted with the actor's role on
 * the repository, like any GitHub request. Runs recorded before it started such children without.
 */
export const CHILD_GITHUB_ACTOR = 'task-child-github-actor';

/** The person a run works for, as the admission sees them (a child run is admitted as them). */
export function personOfRun(input: RunInput): Person {
  const { surface, id, selfServe, grant, githubRole } = input.requester;
  const channel = input.replyTarget.kind === 'slack' ? input.replyTarget.channel : undefined;
  return {
    surface,
    userId: id,
    ...(channel ? { channelId: channel } : {}),
    ...(selfServe ? { selfServe } : {}),
    ...(grant ? { grant } : {}),
    ...(githubRole ? { githubRole } : {}),
  };
}

/** A started child run, as far as the parent needs it. */
export interface ChildRun {
  result(): Promise<RunRecord>;
}

export interface TaskChildrenDeps {
  runId: string;
  state: RunState;
  control: RunControl;
  clock: WorkflowClock;
  setup: SetupActivities;
  /** The workspace key a role child shares with this run. */
  workspaceKey: string;
  /** The host queue of that workspace, prepared first if need be (undefined: the shared queue). */
  workspaceHost?: () => Promise<string | undefined>;
  /** Starts `agentRunWorkflow` as a child that is cancelled with this run. */
  startRun(workflowId: string, input: RunInput, staticSummary: string): Promise<ChildRun>;
  /** The repository vet (one GET with the child's identity), for an agent child on a repository machine class. */
  vet(input: VetRepositoryInput): Promise<VetRepositoryResult>;
  /** `patched()` in the workflow; tests pass what they replay. */
  patched(id: string): boolean;
}

type AgentSetup = Awaited<ReturnType<SetupActivities['loadAgentSetup']>>;

/** A child the admission let start: what it runs and the profile it runs with. */
interface Admitted {
  target: Extract<ReturnType<typeof resolveTaskTarget>, { ok: true }>;
  childProfile: Profile;
  /** An agent child in a session of its own, vetted before it starts. */
  ownSession: boolean;
}

/** Where the child stands among the run's tasks, and the catalog its system prompt is built from. */
interface Launch {
  index: number;
  depth: number;
  catalog: AgentSetup['catalog'];
}

interface Background {
  call: string;
  result?: RunRecord;
  done: boolean;
}

/**
 * The run's `task` children: each is resolved against the catalog and the person's access,
 * started as a child run, and either awaited (sync) or followed in the background, where its
 * answer joins the conversation when it ends or a `wait_for_job` collects it.
 */
export class TaskChildren {
  private readonly background = new Map<string, Background>();

  constructor(private readonly deps: TaskChildrenDeps) {}

  /** Background children not yet collected. */
  get size(): number {
    return this.background.size;
  }

  /** Some background child is still running. */
  pending(): boolean {
    return [...this.background.values()].some((entry) => !entry.done);
  }

  /** Some background child has ended and waits to be collected. */
  anyDone(): boolean {
    return [...this.background.values()].some((entry) => entry.done);
  }

  // The awaits stay in this one method, in the order they always had: a tool call of one turn
  // runs beside the others, and an async helper between them would add a microtask and could
  // reorder the commands of two calls resumed in the same activation (replay would then fail).
  async start(call: ToolCall, args: ToolInput<'task'>): Promise<ToolResult> {
    const { state, clock } = this.deps;
    // Numbered before any await, so concurrent calls of one turn are numbered in call order.
    state.taskCounter += 1;
    const index = state.taskCounter;
    const depth = (state.input.parent?.depth ?? 0) + 1;
    if (depth > MAX_TASK_DEPTH) return toolError(call, `Delegation is limited to ${MAX_TASK_DEPTH} levels; do this part yourself.`);
    const setup = await this.deps.setup.loadAgentSetup();
    const admitted = this.admitChild(setup, args, depth);
    if (typeof admitted === 'string') return toolError(call, admitted);
    if (admitted.ownSession) {
      const refused = await this.admit(admitted.childProfile);
      if (refused) return toolError(call, refused);
    }
    const child = { index, depth, catalog: setup.catalog, ...admitted };
    const record = this.recordChild(args, child);
    let run: ChildRun;
    try {
      // A role child works in this run's workspace: on the host that holds it.
      const workspaceHost = child.target.kind === 'role' ? await this.deps.workspaceHost?.() : undefined;
      run = await this.deps.startRun(
        record.workflowId,
        this.childInput(args, child, workspaceHost),
        `${record.agent} task "${args.name}"${args.description ? ` (${args.description.slice(0, 80)})` : ''} for ${this.deps.runId}`,
      );
    } catch (error) {
      Object.assign(record, { outcome: 'failed', endedAt: clock.now() });
      throw error;
    }
    if (record.mode === 'background') return this.follow(call, args.name, run, record);
    const result = await run.result();
    adoptUncertain(state, result);
    Object.assign(record, { outcome: result.outcome, endedAt: clock.now() });
    return { callId: call.id, name: call.name, content: describeChild(args.name, result), isError: result.outcome !== 'completed' };
  }

  /**
   * The child's target and profile, or why it may not start. A child is admitted like any
   * request, as the person the run is for: the chosen model (the model writes what chat asked
   * for), and for an agent child the access rules, a GitHub actor's role and the sandbox
   * (agents/admission.ts). The caller's self-serve flag and token grant follow it into the runs
   * it delegates to. An agent child in a session of its own is vetted next (`admit`).
   */
  private admitChild(setup: AgentSetup, args: ToolInput<'task'>, depth: number): Admitted | string {
    const { state, clock } = this.deps;
    const { input } = state;
    const { profile } = input;
    const target = resolveTaskTarget(setup.catalog, args.agent_type, profile, setup.config);
    if (!target.ok) return target.message;
    // A complementary role's point is another model family than this run's: a chosen model must be one.
    if (target.definition.complementary && typeof args.model === 'string' && modelFamily(args.model) === modelFamily(profile.model.value))
      return `${target.definition.id} runs on a model of another family than this run's ${profile.model.value}; ${args.model} is not one.`;
    const person = personOfRun(input);
    if (typeof args.model === 'string') {
      const refused = modelCheck(setup, { person, agent: target.definition.id, model: args.model }, target.definition);
      if (refused) return refused.message;
    }
    // The MCP servers the admission grants an agent child here (the deployment's attachments for the repository included).
    let admittedMcp: McpAdmission | undefined;
    if (target.kind === 'agent') {
      const skip = person.surface === 'github' && !this.deps.patched(CHILD_GITHUB_ACTOR) ? (['github_actor'] as const) : [];
      const allowed = admitStart(setup, {
        person,
        agent: target.definition.id,
        ...(profile.repo ? { repo: profile.repo.value } : {}),
        skip,
      });
      if (!allowed.ok) return allowed.message;
      admittedMcp = allowed.mcp;
    }
    const ownSession = target.kind === 'agent' && this.deps.patched(AGENT_CHILD_OWN_SESSION);
    const bounds = {
      parent: profile,
      parentRemainingMinutes: Math.floor(state.remainingMs(clock.now()) / 60_000),
      ...(typeof args.model === 'string' ? { model: args.model } : {}),
      config: setup.config,
    };
    const childProfile = ownSession
      ? resolveAgentChildProfile({
          agent: target.definition,
          ...bounds,
          ...(setup.backends ? { tooling: { backends: setup.backends, conversation: 'api' as const } } : {}),
          ...(admittedMcp ? { mcp: admittedMcp } : {}),
        })
      : resolveRoleProfile({ role: target.definition, ...bounds, depth });
    return { target, childProfile, ownSession };
  }

  /** The child's line in the run's record, listed in index order. */
  private recordChild(args: ToolInput<'task'>, child: Admitted & Launch): ChildRecord {
    const { runId, state, clock } = this.deps;
    const record: ChildRecord = {
      index: child.index,
      workflowId: `${runId}/task-${child.index}-${args.name}`,
      agent: child.childProfile.agent,
      name: args.name,
      ...(args.description ? { description: args.description } : {}),
      mode: args.mode ?? 'background',
      startedAt: clock.now(),
    };
    state.children.push(record);
    state.children.sort((a, b) => a.index - b.index);
    return record;
  }

  /** The child run's input, built when it starts (what it inherits is read then). */
  private childInput(args: ToolInput<'task'>, child: Admitted & Launch, workspaceHost: string | undefined): RunInput {
    const { runId, state } = this.deps;
    const { input } = state;
    const { target, childProfile } = child;
    const inherits = target.definition.conversation === 'inherited';
    return {
      // The request first: it is what the Web UI's input view shows at the top.
      request: args.prompt,
      requester: input.requester,
      threadId: input.threadId,
      profile: childProfile,
      system: buildSystemPrompt(target.definition, childProfile, { parent: definitionOf(child.catalog, input.profile) }),
      context: inherits ? this.conversationForChild() : [],
      replyTarget: { kind: 'api' },
      parent: { workflowId: runId, depth: child.depth },
      ...(target.kind === 'role' ? { workspaceKey: this.deps.workspaceKey } : {}),
      ...(workspaceHost ? { workspaceHost } : {}),
      // A capped run's task is bounded by what is left of its cap when it starts.
      ...(input.spendCap ? { spendCap: childSpendCap(input.spendCap, state.cost.usd, runId) } : {}),
    };
  }

  /** A background child: its answer joins the conversation when it ends (collect) or a wait_for_job takes it. */
  private follow(call: ToolCall, name: string, run: ChildRun, record: ChildRecord): ToolResult {
    const { state, clock } = this.deps;
    const entry: Background = { call: call.id, done: false };
    this.background.set(record.workflowId, entry);
    run
      .result()
      .then(
        (result) => {
          entry.result = result;
          adoptUncertain(state, result);
        },
        () => undefined,
      )
      .finally(() => {
        entry.done = true;
        Object.assign(record, { outcome: entry.result?.outcome ?? 'failed', endedAt: clock.now() });
      });
    return {
      callId: call.id,
      name: call.name,
      content: `Started ${record.agent} task "${name}" in the background (job id ${record.workflowId}). Its answer arrives in this conversation when it finishes, or call wait_for_job with that job id.`,
    };
  }

  /**
   * Why an agent child may not start in a session of its own, or undefined: a repository its
   * parent's thread never vetted is vetted first, with the child's own identity (the admission
   * has already refused a shell this worker cannot isolate).
   */
  private async admit(child: Profile): Promise<string | undefined> {
    if (!needsVetting(child)) return undefined;
    const vet = await this.deps.vet(vetInput(child));
    return vet.ok ? undefined : vetRefusalText(child.agent, child, vet);
  }

  /** `wait_for_job` with a job id: waits for that background child, or until the run is ending. */
  async wait(call: ToolCall, jobId: string): Promise<ToolResult> {
    const entry = this.background.get(jobId);
    if (!entry) return toolError(call, `No background task with job id ${jobId} in this run.`);
    this.deps.state.phase = 'waiting';
    await this.deps.clock.condition(() => entry.done || this.deps.control.ending());
    if (!entry.done) return toolError(call, `Stopped waiting for ${jobId}: the run is ending.`);
    this.background.delete(jobId);
    return { callId: call.id, name: call.name, content: describeChild(jobId, entry.result) };
  }

  /** Background results that finished join the conversation before the next turn. */
  collect(): void {
    for (const [id, entry] of this.background) {
      if (!entry.done) continue;
      this.background.delete(id);
      this.deps.state.note(`(background task ${id} finished) ${describeChild(id, entry.result)}`);
    }
  }

  /**
   * What an inheriting child (`debug`) starts from: the parent's conversation with its tool
   * calls and results (the symptoms it exists to read), less this turn's calls still in flight,
   * bounded to half its model's window. Runs recorded before that gave it the words only.
   */
  private conversationForChild() {
    const { state } = this.deps;
    if (this.deps.patched(DEBUG_INHERITS_TOOL_RESULTS)) return inheritedConversation(state.messages, Math.floor(state.contextWindow / 2));
    return state.messages.filter((message) => message.role !== 'tool' && !(message.role === 'assistant' && message.toolCalls.length > 0));
  }
}

export function toolError(call: ToolCall, content: string): ToolResult {
  return { callId: call.id, name: call.name, content, isError: true };
}

/** A child's unconfirmed writes are listed on by its parent (and in turn by the thread or unit), so they can be resent there. */
function adoptUncertain(state: RunState, record: RunRecord): void {
  for (const write of record.unconfirmed ?? [])
    if (!state.uncertain.some((w) => w.effectKey === write.effectKey)) state.uncertain.push(write);
}

function describeChild(name: string, record: RunRecord | undefined): string {
  if (!record) return `Task ${name} failed before it produced a record.`;
  return `Task ${name} (${record.profile.agent}) ended ${record.outcome}${record.endedBy ? ` by ${record.endedBy}` : ''} after ${record.turns} turns.\n${record.finalText}`;
}

/** What is left of a parent's money bound, for a task it starts. */
function childSpendCap(cap: SpendCap, spent: number, parent: string): SpendCap {
  const left = Math.max(0, Math.round((cap.usd - spent) * 1_000_000) / 1_000_000);
  return { usd: left, boundedBy: `what was left of ${parent}'s spend cap (${cap.boundedBy})` };
}
