import { followMessage } from './tracing';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ChatMessage } from './contracts/model';
import {
  githubToolReads,
  githubWrites,
  boards,
  localSetup,
  repoReads,
  repoVetting,
  routingModels,
  setup,
  status as rawStatus,
} from './activity-proxies';
import { autoReviewText, ReviewMemory } from './thread/auto-review';
import { seededMessage, THREAD_SEEDS_ISSUES } from './thread/issue-seed';
import { repoInPlay, settingsNotice, THREAD_REPO_SETTINGS, withRepository } from './thread/repo-settings';
import { steerTooLong } from './thread/steer-length';
import { classify, classifierOn } from './thread/classify';
import { UncertainWrites } from './effects/uncertain-writes';
import { CANCEL_STOP, cancelAsStop, type OnCancel } from './cancel-as-stop';
import { currentDetails, staticDetails } from './details';
import { InputGuard } from './input-guard';
import { endThread } from './thread/end-thread';
import { answerBoardCommand, consolidateRun, THREAD_SLASH_COMMANDS, type BoardCommandContext } from './thread/board-command';
import { SwitchboardKind, Thread } from './search-attributes';
import { decide, personOf } from './thread/decide';
import { shipStart } from './thread/ship-start';
import { EAGER_RUN_START, startRun } from './thread/run-start';
import { RunEnds, savedOutcome } from './thread/run-ends';
import { runAnswer } from './thread/run-answer';
import { startShipUnit } from './thread/ship-unit-start';
import { needsVetting, VET_REPOSITORY_PATCH, vetInput, vetRefusal } from './thread/vet';
import { threadSpend } from './thread/spend';
import { answerPlan, draftedPlan, THREAD_STARTS_PLANS } from './thread/plan-ask';
import { orUnavailable } from './thread/unavailable';
import { planAsk } from '../agents/plan-message';
import { releaseSpend } from './spend/release';
import type { AgentSetup } from '../activities/agents/agent-setup';
import type { StatusActivities } from './activity-proxies';
import { admitControl, isSlashCommand, type AdmissionRefusal } from '../agents';
import {
  messageSignal,
  runEndedSignal,
  resendUpdate,
  sendMessageUpdate,
  steerSignal,
  stopSignal,
  threadStateQuery,
  THREAD_MESSAGE_SHAPE,
  problemWith,
  uncertainWritesQuery,
  type MessageOutcome,
  type ReplyTarget,
  type SavedExchange,
  type StopInput,
  type ThreadInput,
  type ThreadMessage,
} from './contracts';

/** Exchanges a follow-up sees; older ones drop off. */
export const SAVED_EXCHANGES = 10;
/** Message ids remembered for dedupe (Slack retries, webhook redeliveries). */
export const SEEN_MESSAGE_IDS = 500;
export const OUTCOMES_KEPT = 50;
/** The `patched()` id of saying "could not confirm delivery of …" after an unconfirmed reply (docs/versioning.md). */
export const UNCERTAIN_REPLY_NOTICE = 'uncertain-reply-notice';
/** Continue-as-new between runs once history passes this many events (or Temporal suggests it). */
export const THREAD_HISTORY_LIMIT = 5_000;

/**
 * One conversation. Receives each message by signal-with-start, decides the agent and
 * access, runs one run at a time as a child, keeps the sticky agent and the saved context a
 * follow-up sees, and answers refusals in plain words. It outlives its runs.
 */
export async function threadWorkflow(input: ThreadInput): Promise<void> {
  return cancelAsStop((onCancel) => thread(input, onCancel));
}

async function thread(input: ThreadInput, onCancel: OnCancel): Promise<void> {
  const { threadId } = input;
  const carry = input.carry;
  let stickyAgent = carry?.stickyAgent;
  let runCount = carry?.runCount ?? 0;
  const saved: SavedExchange[] = carry?.saved ?? [];
  const queue: ThreadMessage[] = carry?.queue ?? [];
  const seen: string[] = carry?.seen ?? [];
  const outcomes: MessageOutcome[] = carry?.outcomes ?? [];
  // The host queue of the thread's workspace: the next run goes on where the files are (or is told they were lost).
  let workspaceHost = carry?.workspaceHost;
  let currentRunId: string | undefined;
  // Who asked for the current run and what it runs: a reply that steers it is admitted against them.
  let currentRun: { requester: string; agent: string; repo?: string } | undefined;
  // The agent setup the thread decided its last message with: the admission's facts for a steer.
  let facts: AgentSetup | undefined;
  // Refusals answered from the message handlers (a steer that was not admitted), awaited before the thread closes.
  const handlerReplies: Array<Promise<unknown>> = [];
  // The conversation's pull request reviews: reviewed commits, the last findings, an automatic review waiting its turn.
  const reviews = new ReviewMemory(carry?.reviews ?? { reviewed: [] });
  // The last plan a run drafted here, until its requester confirms it (`plan confirm`).
  let planDraft = carry?.planDraft;
  const uncertainList = carry?.uncertain ?? [];
  const uncertain = new UncertainWrites(
    uncertainList,
    { githubWrites, status: rawStatus },
    {
      now: () => Date.now(),
      workflowId: threadId,
      // Said in the same conversation, once more; histories recorded before this say nothing (docs/versioning.md).
      notify: async (write, text) => {
        if (write.call.activity === 'deliverReply' && patched(UNCERTAIN_REPLY_NOTICE))
          await rawStatus.deliverReply({ effectKey: `${write.effectKey}/notice`, replyTarget: write.call.input.replyTarget, text });
      },
    },
  );
  const statusActivities = uncertain.recording().status;

  // The message taken from the queue and not yet decided (its setup and vetting run meanwhile).
  let deciding: string | undefined;
  const remember = (outcome: MessageOutcome) => {
    if (outcome.messageId === deciding) deciding = undefined;
    outcomes.push(outcome);
    outcomes.splice(0, Math.max(0, outcomes.length - OUTCOMES_KEPT));
  };

  setHandler(threadStateQuery, () => ({
    threadId,
    ...(stickyAgent ? { stickyAgent } : {}),
    ...(currentRunId ? { currentRunId } : {}),
    queued: queue.length,
    runCount,
    saved: saved.length,
    outcomes,
    ...(uncertainList.length ? { unconfirmed: uncertainList } : {}),
    ...reviews.pendingView(),
  }));
  // Every message is checked whole before it touches the thread (contracts/inputs.ts): a
  // malformed update is refused naming the field, a malformed signal dropped and counted.
  const guard = new InputGuard('threadWorkflow', () => showDetails());
  const showDetails = () =>
    setCurrentDetails(
      currentDetails({
        phase: currentRunId ? 'running' : queue.length > 0 || deciding ? 'deciding' : 'idle',
        // The current run is linked on the Runs line below.
        note: [
          `${queue.length} queued`,
          `${runCount} run${runCount === 1 ? '' : 's'}`,
          ...(stickyAgent ? [`agent ${stickyAgent}`] : []),
        ].join(' · '),
        ...(guard.note() ? { dropped: guard.note() } : {}),
        runs: { namespace: workflowInfo().namespace, threadId, ...(currentRunId ? { current: currentRunId } : {}) },
      }),
    );
  setHandler(uncertainWritesQuery, () => uncertainList);
  guard.update(resendUpdate, (request) => uncertain.resend(request), {
    code: 'resend_refused',
    also: (request) => void uncertain.validate(request),
  });
  // Set just before the thread continues-as-new or ends: a `sendMessage` update still waiting
  // for its message's decision is answered `queued` then (the decision comes in the next run).
  let closing = false;
  const outcomeOf = (messageId: string) => outcomes.find((entry) => entry.messageId === messageId);
  /** Why this reply may not steer the current run (agents/admission.ts `admitControl`), or undefined. */
  const steerRefusal = (message: ThreadMessage, runId: string): AdmissionRefusal | undefined => {
    if (!facts || !currentRun) return undefined;
    const subject = { kind: 'run' as const, id: runId, ...currentRun };
    const allowed = admitControl(facts, personOf(message), subject, 'steer');
    return allowed.ok ? undefined : allowed;
  };
  /** Takes one well-formed message (from the signal or the update); false for a repeat. */
  const accept = (message: ThreadMessage): boolean => {
    if (seen.includes(message.messageId)) return false;
    seen.push(message.messageId);
    seen.splice(0, Math.max(0, seen.length - SEEN_MESSAGE_IDS));
    // An automatic review waits for its debounce and for the conversation's messages (a newer push's replaces it).
    if (message.review) {
      reviews.hold(message, Date.now());
      return true;
    }
    const runId = currentRunId;
    if (runId && message.addressedToRun) {
      const refused = steerRefusal(message, runId) ?? steerTooLong(message, patched);
      // Threads recorded before steers were admitted sent every reply to the run (docs/versioning.md).
      if (refused && patched(STEER_ADMITTED)) {
        remember({ messageId: message.messageId, kind: 'refused', reply: refused.message, code: refused.code });
        handlerReplies.push(
          statusActivities
            .deliverReply({
              effectKey: `${threadId}/reply/${message.messageId}`,
              replyTarget: message.replyTarget ?? input.replyTarget,
              text: refused.message,
            })
            .catch(() => undefined),
        );
        return true;
      }
      remember({ messageId: message.messageId, kind: 'steered', runId });
      getExternalWorkflowHandle(runId)
        .signal(steerSignal, { text: message.text, by: message.requester.id })
        .catch(() => queue.push(message)); // the run ended meanwhile: treat it as a new request
      return true;
    }
    queue.push(message);
    return true;
  };
  guard.signal(messageSignal, (message) => void accept(message));
  guard.update(sendMessageUpdate, async (message): Promise<MessageOutcome> => {
    const fresh = accept(message);
    const pending = () => deciding === message.messageId || queue.some((entry) => entry.messageId === message.messageId);
    // A repeat whose decision has been forgotten and that is not waiting either: nothing more to say.
    if (!fresh && !outcomeOf(message.messageId) && !pending()) return { messageId: message.messageId, kind: 'duplicate' };
    await condition(() => outcomeOf(message.messageId) !== undefined || closing);
    return outcomeOf(message.messageId) ?? { messageId: message.messageId, kind: 'queued' };
  });
  let pendingStop: StopInput | undefined;
  // Stops the thread's running run (the Slack stop reaction and button land here).
  const stopRun = (stop: StopInput | undefined) => {
    if (!currentRunId) return;
    // Kept too, in case the run is still starting and the signal cannot reach it yet.
    pendingStop = stop ?? {};
    getExternalWorkflowHandle(currentRunId)
      .signal(stopSignal, pendingStop)
      .catch(() => undefined);
  };
  guard.signal(stopSignal, stopRun);
  // The current run's end, told by the run itself (one started eagerly); any other run's is of the past.
  const runEnds = new RunEnds(() => currentRunId);
  guard.signal(runEndedSignal, (end) => runEnds.receive(end));
  // A cancelled thread stops its run (which settles and is answered as usual), then ends.
  let cancelled = false;
  onCancel(() => {
    cancelled = true;
    stopRun(CANCEL_STOP);
  });

  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'thread' },
    { key: Thread, value: threadId },
  ]);

  for (;;) {
    showDetails();
    // A waiting automatic review runs once its debounce is over and no message is queued; a newer push waits again.
    const held = reviews.version;
    const reviewWait = reviews.waitMs(Date.now());
    if (reviewWait === undefined) await condition(() => queue.length > 0 || cancelled || reviews.version !== held);
    else if (reviewWait > 0) await condition(() => queue.length > 0 || cancelled || reviews.version !== held, reviewWait);
    if (cancelled) break;
    if (queue.length === 0 && reviews.waitMs(Date.now()) !== 0) continue;
    let message = queue.length > 0 ? queue.shift()! : reviews.take()!;
    deciding = followMessage(message.messageId);
    // A message queued before messages were checked whole (carried, or accepted by an older
    // worker) is answered as refused rather than failing the thread's task on every retry.
    const malformed = problemWith(THREAD_MESSAGE_SHAPE, message);
    if (malformed) {
      remember({ messageId: String(message?.messageId), kind: 'refused', code: 'message_invalid', reply: `Not taken: ${malformed}.` });
      continue;
    }
    const replyTarget = message.replyTarget ?? input.replyTarget;
    // An automatic review of a commit this conversation already reviewed is not run again.
    if (message.review && reviews.reviewed(message.review.headSha)) {
      remember({ messageId: message.messageId, kind: 'duplicate' });
      continue;
    }
    // An issue's unit is seeded with the issue itself: its title, body and comments, read now.
    if (message.seed && patched(THREAD_SEEDS_ISSUES)) {
      const issue = await githubToolReads
        .githubIssueThread({ repo: replyTarget.kind === 'github' ? replyTarget.repo : '', number: message.seed.issue })
        .catch(() => undefined);
      message = issue ? seededMessage(message, issue) : message;
    }
    if (message.review) message = { ...message, text: autoReviewText(message.review) };
    // A local activity: decided and the run started in one workflow task, no task-queue round trip.
    let agentSetup = patched(PATCH_LOCAL_SETUP) ? await localSetup.loadAgentSetup() : await setup.loadAgentSetup();
    // The repository's own settings (its .switchboard.yml): which agents it allows is one of the admission's facts.
    const repo = repoInPlay(agentSetup, message, replyTarget);
    if (repo && patched(THREAD_REPO_SETTINGS)) {
      const settings = await repoReads.repoSettings({ repo }).catch(() => undefined);
      agentSetup = withRepository(agentSetup, settings);
      const notice = settingsNotice(settings);
      // Said once per version of a broken file in this conversation (the key names the file's blob).
      if (notice) await rawStatus.deliverReply({ ...notice, replyTarget }).catch(() => undefined);
    }
    facts = agentSetup;
    // A plan (`plan` and its YAML) starts a plan workflow through the same admission; threads recorded before decided it as any message.
    const asked = planAsk(message.text);
    if (asked && patched(THREAD_STARTS_PLANS)) {
      const unavailable = { messageId: message.messageId, threadId, replyTarget, status: statusActivities, what: 'The plan' };
      const planned = await orUnavailable(
        () => answerPlan(asked, message, replyTarget, agentSetup, statusActivities, planDraft),
        unavailable,
      );
      if (planned.kind === 'plan' && 'confirm' in asked) planDraft = undefined;
      remember({ messageId: message.messageId, ...planned });
      continue;
    }
    // A GitHub actor's role is checked per agent; threads recorded before that decided without it (docs/versioning.md).
    const skip = message.requester.surface === 'github' && !patched(GITHUB_ACTOR_ADMITTED) ? (['github_actor'] as const) : [];
    // The rules that find review, explore and research (over routable agents only), then the
    // classifier where the deployment turned it on; threads recorded before route as they did.
    const rules = patched(ROUTING_FINDS_AGENTS);
    // Slash commands (/review, /research, /subconscious run, /board); threads recorded before read them as text.
    const options = { rules, commands: isSlashCommand(message.text) && patched(THREAD_SLASH_COMMANDS) };
    let decision = decide(agentSetup, message, stickyAgent, replyTarget, skip, options);
    if (rules && decision.route?.reason === 'default' && classifierOn(agentSetup)) {
      const classified = await classify(agentSetup, message, routingModels, threadId);
      if (classified.answer)
        decision = decide(agentSetup, message, stickyAgent, replyTarget, skip, { rules, classified: classified.answer });
      if (decision.kind === 'run' && classified.usage) {
        decision.routing = {
          agent: decision.agent,
          reason: decision.route?.reason ?? 'default',
          ...decision.routing,
          usage: classified.usage,
        };
      }
    }
    // A repository run's owner/name is vetted (one GET, the run's own identity) before any workspace exists.
    if (decision.kind === 'run' && needsVetting(decision.profile) && patched(VET_REPOSITORY_PATCH)) {
      decision = vetRefusal(decision, await repoVetting.vetRepository(vetInput(decision.profile))) ?? decision;
    }
    // Spend caps, where any are configured: a run's money is reserved before it starts; past a daily cap, refused with the amount and the reset time.
    const spend = await threadSpend(agentSetup, decision, message, threadId, `run:${threadId}:${runCount + 1}`);
    decision = spend.decision;
    // An automatic review keeps the conversation's agent as it was (it is the repository's, not the person's choice).
    if (!message.review) stickyAgent = decision.stickyAgent;
    if (decision.kind === 'refused' && message.review && message.review.trigger !== 'review_requested') {
      // A review nobody asked for in words is not answered with a refusal: it is recorded, and logged by the door.
      remember({ messageId: message.messageId, kind: 'refused', reply: decision.reply, code: decision.code });
    } else if (decision.kind === 'refused') {
      remember({ messageId: message.messageId, kind: 'refused', reply: decision.reply, code: decision.code });
      await statusActivities.deliverReply({
        effectKey: `${threadId}/reply/${message.messageId}`,
        replyTarget,
        text: decision.reply,
        acknowledge: 'refused',
      });
    } else if (decision.kind === 'ship') {
      const outcome = await startShipUnit(
        shipStart(decision.request, decision.profile, message, replyTarget, threadId),
        message,
        agentSetup,
      );
      remember({ messageId: message.messageId, agent: 'ship', ...outcome });
      await statusActivities.deliverReply({
        effectKey: `${threadId}/reply/${message.messageId}`,
        replyTarget,
        text: outcome.reply,
        acknowledge: outcome.kind === 'refused' ? 'refused' : 'accepted',
      });
    } else if (decision.kind === 'board') {
      const board = boardAt(agentSetup, threadId, statusActivities, { message, replyTarget, repo });
      const unavailable = { messageId: message.messageId, threadId, replyTarget, status: statusActivities, what: 'The board' };
      remember(await orUnavailable(() => answerBoardCommand(decision.command, board), unavailable));
    } else {
      runCount += 1;
      const runId = `run:${threadId}:${runCount}`;
      currentRunId = runId;
      currentRun = {
        requester: message.requester.id,
        agent: decision.agent,
        ...(decision.profile.repo
          ? { repo: decision.profile.repo.value }
          : replyTarget.kind === 'github'
            ? { repo: replyTarget.repo }
            : {}),
      };
      showDetails();
      const started = await startRun(
        {
          runId,
          // The request first: it is what the Web UI's input view shows at the top.
          input: {
            request: decision.request,
            requester: message.requester,
            threadId,
            replyTarget,
            profile: decision.profile,
            system: decision.system,
            context: savedContext(saved),
            ...(workspaceHost ? { workspaceHost } : {}),
            ...(spend.spendCap ? { spendCap: spend.spendCap } : {}),
            // A review of the conversation's pull request: once per commit, and after an earlier one, what a push resolved.
            ...reviews.runExtras(decision.profile.tools, replyTarget, threadId, message),
            ...(decision.routing ? { routing: decision.routing } : {}),
            ...(decision.board ? { board: decision.board } : {}),
          },
          staticSummary: `${decision.agent}: ${decision.request.slice(0, 120)}`,
          staticDetails: staticDetails({
            kind: 'run',
            request: decision.request,
            requester: message.requester,
            agent: decision.agent,
            ...(decision.profile.repo ? { repo: decision.profile.repo.value } : {}),
            ...(replyTarget.kind === 'github' ? { repo: replyTarget.repo, pullRequest: replyTarget.pullRequest } : {}),
            threadId,
            namespace: workflowInfo().namespace,
          }),
        },
        // Started by a local activity with eager workflow start, its end told by signal; threads recorded before started a child.
        { eager: patched(EAGER_RUN_START), ends: runEnds, runWatch: input.runWatch },
      );
      // Told once the run exists, so a caller that follows it (the CLI, the API) never finds no run.
      remember({ messageId: message.messageId, kind: 'run', runId, agent: decision.agent });
      if (pendingStop) await started.stop(pendingStop);
      const ended = await started.ended();
      const record = ended.record;
      if (spend.holder) await releaseSpend({ holder: runId, ...(record?.cost ? { spentUsd: record.cost.usd } : {}), by: threadId });
      currentRunId = undefined;
      currentRun = undefined;
      pendingStop = undefined;
      if (record?.workspaceHost) workspaceHost = record.workspaceHost;
      // The run's own unconfirmed writes (its tools', its card's) are listed here, where `resend` repairs them.
      uncertain.adopt(record?.unconfirmed);
      reviews.record(record);
      await consolidateRun(record, boardAt(agentSetup, threadId, statusActivities, { message, replyTarget, repo }), patched);
      planDraft = draftedPlan(record) ?? planDraft;
      const answer = runAnswer(record, ended, replyTarget);
      saved.push({ request: decision.request, answer, agent: decision.agent, outcome: savedOutcome(ended) });
      saved.splice(0, Math.max(0, saved.length - SAVED_EXCHANGES));
      // An automatic review that posted its review has said everything there (its card says it ended).
      if (!(message.review && record?.reviewed?.status === 'confirmed'))
        await statusActivities.deliverReply({ effectKey: `${runId}/answer`, replyTarget, text: answer });
    }
    const info = workflowInfo();
    if (!cancelled && (info.continueAsNewSuggested || info.historyLength > THREAD_HISTORY_LIMIT)) {
      closing = true;
      await condition(allHandlersFinished);
      await Promise.all(handlerReplies);
      await continueAsNew<typeof threadWorkflow>({
        ...input,
        carry: {
          ...(stickyAgent ? { stickyAgent } : {}),
          ...(workspaceHost ? { workspaceHost } : {}),
          runCount,
          saved,
          queue,
          seen,
          outcomes,
          ...(uncertainList.length ? { uncertain: uncertainList } : {}),
          ...(reviews.reviews.reviewed.length || reviews.reviews.pending ? { reviews: reviews.reviews } : {}),
          ...(planDraft ? { planDraft } : {}),
        },
      });
    }
  }
  closing = true;
  await Promise.all(handlerReplies);
  await endThread({ threadId, replyTarget: input.replyTarget, unanswered: queue.length, ...(workspaceHost ? { workspaceHost } : {}) });
}

/** Marks histories whose threads route by the rules that find review, explore and research, and may ask a classifier. */
export const ROUTING_FINDS_AGENTS = 'routing-finds-agents';
/** Marks histories whose threads admit a reply before it steers the current run (agents/admission.ts `admitControl`). */
export const STEER_ADMITTED = 'thread-steer-admitted';
/** Marks histories whose threads check a GitHub actor's role on the repository per agent (`githubActorCheck`). */
export const GITHUB_ACTOR_ADMITTED = 'thread-github-actor-admitted';
/** Marks histories whose threads load the agent setup as a local activity (before: an activity). */
export const PATCH_LOCAL_SETUP = 'thread-local-agent-setup';
/**
 * What `/board`, `/subconscious run` and a run's consolidation need of the message being decided (the setup it was
 * decided with). After a run, where the repository's board consolidates runs, one that did work worth keeping is
 * read by rem-agent (thread/board-command.ts `consolidateRun`).
 */
function boardAt(
  setup: AgentSetup,
  threadId: string,
  status: Pick<StatusActivities, 'deliverReply'>,
  about: { message: ThreadMessage; replyTarget: ReplyTarget; repo: string | undefined },
): BoardCommandContext {
  const { message, replyTarget, repo } = about;
  return {
    setup,
    message,
    replyTarget,
    threadId,
    ...(repo ? { repo } : {}),
    activities: boards,
    deliverReply: (reply) => status.deliverReply(reply),
  };
}

function savedContext(saved: SavedExchange[]): ChatMessage[] {
  return saved.flatMap((exchange): ChatMessage[] => [
    { role: 'user', text: exchange.request },
    { role: 'assistant', text: `(${exchange.agent}, ${exchange.outcome}) ${exchange.answer}`, toolCalls: [] },
  ]);
}
