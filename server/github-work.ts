import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { RepoSettingsResult } from '../activities/github/repo-settings';
import type { ActorGate } from '../activities/github/actor-gate';
import type { RefusalCode } from '../workflows/contracts/refusals';
import { getAgent, githubRequirement, parseDirectives, roleAtLeast, type AdmissionFacts, type GitHubRole, type Person } from '../agents';
import { type Logger } from '../infra/logger';
import { visibilityQuery } from '../infra/visibility';
import {
  MAX_STEER_CHARS,
  messageSignal,
  steerSignal,
  stopSignal,
  threadStateQuery,
  threadWorkflowType,
  type ThreadInput,
  type ThreadMessage,
} from '../workflows/contracts';
import { settingsNotice } from '../workflows/thread/repo-settings';
import { type ControlAdmissionDoor } from './control-admission';
import { stopCommand, type RepositoryEvent } from './github-event-routing';

export type WorkOutcome = boolean | { refused: RefusalCode };

/** What the GitHub door's work on repositories needs (server/github-webhooks.ts hands in its own). */
export interface GitHubWorkDeps {
  client: Client;
  taskQueue: string;
  logger: Logger;
  admission: {
    facts(): Promise<AdmissionFacts>;
    gate: Pick<ActorGate, 'roleOf'> & Partial<Pick<ActorGate, 'react' | 'answer'>>;
  };
  /** The one steer/stop decision (server/control-admission.ts). */
  control: ControlAdmissionDoor;
  /** A repository's settings (its .switchboard.yml and the deployment's); without it no repository event starts work. */
  settings?: { read(repo: string): Promise<RepoSettingsResult> };
  /** The conversations already told of a settings file's problems (`<effect key> <number>`), so a push does not ask GitHub again. */
  told?: Set<string>;
}

/**
 * A repository event as work, when the repository's settings ask for it: an automatic review
 * (the pull request's thread, debounced there), or an issue's ship unit started (the issue's
 * thread, seeded with the issue) or stopped (its running units, each through the admission's stop
 * decision). The actor — who opened, pushed, asked for the review, assigned or labelled — is
 * checked as every GitHub trigger is: their role on the repository, read from GitHub.
 */
export async function repositoryWork(deps: GitHubWorkDeps, event: RepositoryEvent): Promise<WorkOutcome> {
  const { logger } = deps;
  if (!deps.settings) return false;
  let settings: RepoSettingsResult;
  try {
    settings = await deps.settings.read(event.repo);
  } catch (error) {
    logger.warn({ repo: event.repo, err: error }, 'repository settings unreadable: the event starts nothing');
    return false;
  }
  if (settings.problems.length > 0)
    logger.warn({ repo: event.repo, problems: settings.problems }, '.switchboard.yml has problems: those keys are ignored');
  const { issues, review } = settings.settings;
  if (event.kind === 'review') {
    if (!review.triggers.includes(event.trigger)) return tellProblems(deps, settings, event, 'review');
    return startThreadWork(deps, event, 'review', {
      text: '',
      review: { trigger: event.trigger, ...(event.headSha ? { headSha: event.headSha } : {}), debounceSeconds: review.debounceSeconds },
    });
  }
  const ours =
    event.how === 'closed' || (event.how === 'assigned' ? issues.assign : issues.label !== undefined && event.label === issues.label);
  // Assigned to Switchboard and nothing starts: a broken `issues:` may be why. (A label may be anyone's.)
  if (!ours) return event.how === 'assigned' && event.action === 'start' ? tellProblems(deps, settings, event, 'issues') : false;
  if (event.action === 'start' && event.how !== 'closed')
    return startThreadWork(deps, event, 'ship', {
      // What the issue says now; the thread adds the comments when the message's turn comes.
      text: `agent:ship Issue #${event.number}: ${event.title}\n\n${event.body}`.trim(),
      seed: { issue: event.number, trigger: event.how },
    });
  const person = await personFor(deps, event.repo, event.actor);
  const threadId = threadIdOf(event.repo, event.number);
  const units = await runningUnits(deps.client, { Thread: threadId });
  const why =
    event.how === 'closed'
      ? 'the issue was closed as not planned'
      : event.how === 'assigned'
        ? 'the issue was unassigned from Switchboard'
        : `the ${event.label} label was removed`;
  const refused = await stopEach(deps, person, units, why);
  if (refused.length > 0)
    await deps.admission.gate.answer?.({
      repo: event.repo,
      number: event.number,
      text: refused.join('\n'),
      effectKey: `github-door/${event.deliveryId ?? `${threadId}-${event.how}`}/refused`,
    });
  return units.length > refused.length;
}

/**
 * An event that started nothing because the section that decides it is broken (a typo inside
 * `review:` leaves no trigger): the conversation is told what is wrong, naming each key, once per
 * version of the file (the notice's effect key is the one threads and units say it under, so it
 * is said once whoever says it first). Not awaited: GitHub's answer does not wait on the comment.
 */
function tellProblems(deps: GitHubWorkDeps, settings: RepoSettingsResult, event: RepositoryEvent, section: 'review' | 'issues'): false {
  const relevant = settings.problems.some((problem) => problem.key === '(file)' || problem.key.split(/[.,]/)[0] === section);
  const notice = relevant ? settingsNotice(settings) : undefined;
  const told = `${notice?.effectKey} ${event.number}`;
  const answer = deps.admission.gate.answer;
  if (!notice || !answer || deps.told?.has(told)) return false;
  if (deps.told && deps.told.size >= 10_000) deps.told.clear();
  deps.told?.add(told);
  void answer({ repo: event.repo, number: event.number, text: notice.text, effectKey: notice.effectKey }).catch((error: unknown) =>
    deps.logger.warn({ repo: event.repo, err: error }, 'settings notice not posted'),
  );
  return false;
}

/** The thread of an issue or pull request (signal-with-start), when the actor's role admits them for `agent`. */
async function startThreadWork(
  deps: GitHubWorkDeps,
  event: RepositoryEvent,
  agentId: 'review' | 'ship',
  content: Pick<ThreadMessage, 'text' | 'review' | 'seed'>,
): Promise<WorkOutcome> {
  const facts = await deps.admission.facts();
  const agent = getAgent(facts.catalog, agentId);
  const role = await deps.admission.gate.roleOf(event.repo, event.actor);
  const required = agent ? githubRequirement(facts.admission, event.repo, agent).role : 'write';
  if (!role || !roleAtLeast(role, required)) {
    deps.logger.info(
      { repo: event.repo, actor: event.actor, role, required, agent: agentId },
      'GitHub repository event refused at the door',
    );
    return { refused: role ? 'actor_permission' : 'actor_unverified' };
  }
  const threadId = threadIdOf(event.repo, event.number);
  const replyTarget = {
    kind: 'github' as const,
    repo: event.repo,
    pullRequest: event.number,
    ...(event.kind === 'issue' ? { issue: true } : {}),
  };
  const message: ThreadMessage = {
    messageId: `github:${event.deliveryId ?? `${event.kind}-${event.number}-${event.actor}`}`,
    requester: { id: `github:${event.actor}`, surface: 'github', displayName: event.actor, githubRole: role },
    replyTarget,
    ...content,
  };
  const start: ThreadInput = { threadId, replyTarget };
  await deps.client.workflow.signalWithStart(threadWorkflowType, {
    workflowId: threadId,
    taskQueue: deps.taskQueue,
    args: [start],
    signal: messageSignal,
    signalArgs: [message],
  });
  return true;
}

/**
 * A mention that is a command for the conversation's running work: `@switchboard stop` stops
 * the thread's running run and the units working on this pull request or issue; any other words,
 * while no run of the thread works but a unit does, steer that unit. Each through the admission's
 * control decision (its requester, an operator, or on GitHub a collaborator admitted for its agent).
 * Undefined: not a command here, the thread takes the message (and steers its own run with it).
 */
export async function conversationCommand(
  deps: GitHubWorkDeps,
  threadId: string,
  message: ThreadMessage,
): Promise<WorkOutcome | undefined> {
  const target = message.replyTarget?.kind === 'github' ? message.replyTarget : undefined;
  if (!target) return undefined;
  const person: Person = {
    surface: 'github',
    userId: message.requester.id,
    ...(message.requester.githubRole ? { githubRole: message.requester.githubRole } : {}),
  };
  const comment = target.commentId
    ? { repo: target.repo, commentId: target.commentId, ...(target.reviewComment ? { reviewComment: true } : {}) }
    : undefined;
  const answer = (text: string) =>
    deps.admission.gate.answer?.({
      repo: target.repo,
      number: target.pullRequest,
      text,
      effectKey: `github-door/${message.messageId}/answer`,
    });
  const reason = stopCommand(message.text);
  const currentRun = await currentRunOf(deps.client, threadId);
  if (reason !== undefined) {
    const units = await workingUnits(deps.client, target.repo, target.pullRequest, threadId);
    const running = [...(currentRun ? [currentRun] : []), ...units];
    if (running.length === 0) {
      await answer('Nothing of Switchboard is running here, so there is nothing to stop.');
      return false;
    }
    const refused = await stopEach(deps, person, running, reason || 'stopped from GitHub');
    if (comment) await deps.admission.gate.react?.(comment, refused.length < running.length ? '+1' : '-1');
    if (refused.length > 0) await answer(refused.join('\n'));
    return refused.length < running.length ? true : { refused: 'not_requester' };
  }
  if (currentRun) return undefined;
  // Words for a unit at work here steer it, unless they name an agent of their own.
  if (parseDirectives(message.text).directives.agent) return undefined;
  const [unit] = await workingUnits(deps.client, target.repo, target.pullRequest, threadId);
  if (!unit) return undefined;
  const decision = await deps.control.decide(person, unit, 'steer');
  if (!decision.ok) {
    if (comment) await deps.admission.gate.react?.(comment, '-1');
    await answer(decision.message);
    return decision.code === 'not_found' ? false : { refused: decision.code };
  }
  // The unit would drop a steer past its bound unseen: the person hears it here instead.
  if (message.text.length > MAX_STEER_CHARS) {
    if (comment) await deps.admission.gate.react?.(comment, '-1');
    await answer(
      `That comment is ${message.text.length} characters long, and a steer for the unit at work here is at most ${MAX_STEER_CHARS}, so it was not sent to it. Say it in fewer words.`,
    );
    return { refused: 'steer_too_long' };
  }
  await deps.client.workflow.getHandle(unit).signal(steerSignal, { text: message.text, by: message.requester.id });
  if (comment) await deps.admission.gate.react?.(comment, '+1');
  deps.logger.info({ unit, by: message.requester.id }, 'a GitHub comment steered the unit at work there');
  return true;
}

/** Stops each workflow the person may stop; the sentences of the refusals. */
async function stopEach(deps: GitHubWorkDeps, person: Person, workflowIds: string[], reason: string): Promise<string[]> {
  const refused: string[] = [];
  for (const workflowId of workflowIds) {
    const decision = await deps.control.decide(person, workflowId, 'stop');
    if (!decision.ok) {
      if (decision.code !== 'not_found') refused.push(decision.message);
      continue;
    }
    await deps.client.workflow.getHandle(workflowId).signal(stopSignal, { reason, by: person.userId ?? 'github' });
    deps.logger.info({ workflowId, by: person.userId, reason }, 'stopped from GitHub');
  }
  return refused;
}

async function personFor(deps: GitHubWorkDeps, repo: string, login: string): Promise<Person> {
  const role: GitHubRole | undefined = await deps.admission.gate.roleOf(repo, login);
  return { surface: 'github', userId: `github:${login}`, ...(role ? { githubRole: role } : {}) };
}

function threadIdOf(repo: string, number: number): string {
  return `thread:gh:${repo}#${number}`;
}

/** The run a thread is running now, if the thread exists and has one. */
async function currentRunOf(client: Client, threadId: string): Promise<string | undefined> {
  try {
    return (await client.workflow.getHandle(threadId).query(threadStateQuery)).currentRunId;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * The units at work on a conversation: the exact PR's unit, the unit that opened this pull request,
 * and units started from this conversation (an issue's). From visibility, which lags a second or so.
 */
export async function workingUnits(client: Client, repo: string, number: number, threadId: string): Promise<string[]> {
  const found = new Set<string>();
  for (const id of await runningUnits(client, { Repo: repo, PullRequest: number })) found.add(id);
  for (const id of await runningUnits(client, { Thread: threadId })) found.add(id);
  return [...found];
}

async function runningUnits(client: Client, filters: Record<string, string | number>): Promise<string[]> {
  const query = visibilityQuery({ SwitchboardKind: 'unit', ...filters, ExecutionStatus: 'Running' });
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query, pageSize: 20 })) ids.push(execution.workflowId);
  return ids;
}
