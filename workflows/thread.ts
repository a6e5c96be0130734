import { followMessage } from './tracing';
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { cancelAsStop, type OnCancel } from './cancel-as-stop';
import { InputGuard } from './input-guard';
import { SwitchboardKind, Thread } from './search-attributes';
import { endThread } from './thread/end-thread';
import { RunEnds } from './thread/run-ends';
import { threadEffects } from './thread/thread-effects';
import { ThreadInbox } from './thread/thread-inbox';
import { ThreadMemory } from './thread/thread-memory';
import { ThreadTurn } from './thread/thread-turn';
import { threadDetails, threadView } from './thread/thread-views';
import {
  messageSignal,
  runEndedSignal,
  resendUpdate,
  sendMessageUpdate,
  stopSignal,
  threadStateQuery,
  uncertainWritesQuery,
  type ThreadInput,
} from './contracts';

/**
 * One conversation. Receives each message by signal-with-start, decides the agent and
 * access, runs one run at a time as a child, keeps the sticky agent and the saved context a
 * follow-up sees, and answers refusals in plain words. It outlives its runs.
 */
export async function threadWorkflow(input: ThreadInput): Promise<void> {
  return cancelAsStop((onCancel) => thread(input, onCancel));
}

/**
 * The thread's shell: its handlers, its waits and its loop. What it keeps is a ThreadMemory, what
 * its handlers do a ThreadInbox, and each message's turn (decision and answer) a ThreadTurn, all
 * plain classes over the effects the workflow hands them (workflows/thread/).
 */
async function thread(input: ThreadInput, onCancel: OnCancel): Promise<void> {
  const { threadId } = input;
  const memory = new ThreadMemory(threadId, input.carry);
  const effects = threadEffects(threadId, memory.uncertain);
  const { uncertain } = effects;

  setHandler(threadStateQuery, () => threadView(memory));
  // Every message is checked whole before it touches the thread (contracts/inputs.ts): a
  // malformed update is refused naming the field, a malformed signal dropped and counted.
  const guard = new InputGuard('threadWorkflow', () => show());
  const show = () => setCurrentDetails(threadDetails(memory, workflowInfo().namespace, guard.note()));
  setHandler(uncertainWritesQuery, () => memory.uncertain);
  guard.update(resendUpdate, (request) => uncertain.resend(request), {
    code: 'resend_refused',
    also: (request) => void uncertain.validate(request),
  });
  const inbox = new ThreadInbox(memory, effects, input.replyTarget);
  guard.signal(messageSignal, (message) => void inbox.accept(message));
  guard.update(sendMessageUpdate, (message) => inbox.answer(message));
  guard.signal(stopSignal, (stop) => inbox.stop(stop));
  // The current run's end, told by the run itself (one started eagerly); any other run's is of the past.
  const ends = new RunEnds(() => memory.currentRunId);
  guard.signal(runEndedSignal, (end) => ends.receive(end));
  onCancel(() => inbox.cancel());

  upsertSearchAttributes([
    { key: SwitchboardKind, value: 'thread' },
    { key: Thread, value: threadId },
  ]);

  const turn = new ThreadTurn({ input, memory, effects, ends, show });
  for (;;) {
    show();
    // A waiting automatic review runs once its debounce is over and no message is queued; a newer push waits again.
    const held = memory.reviews.version;
    const reviewWait = memory.reviews.waitMs(Date.now());
    if (reviewWait === undefined) await condition(() => memory.woken(held));
    else if (reviewWait > 0) await condition(() => memory.woken(held), reviewWait);
    if (memory.cancelled) break;
    if (!memory.ready(Date.now())) continue;
    const message = memory.next();
    memory.deciding = followMessage(message.messageId);
    if (!(await turn.take(message)) || !memory.continueDue(workflowInfo())) continue;
    memory.closing = true;
    await condition(allHandlersFinished);
    await Promise.all(inbox.replies);
    await continueAsNew<typeof threadWorkflow>({ ...input, carry: memory.carry() });
  }
  memory.closing = true;
  await Promise.all(inbox.replies);
  const { workspaceHost } = memory;
  await endThread({
    threadId,
    replyTarget: input.replyTarget,
    unanswered: memory.queue.length,
    ...(workspaceHost ? { workspaceHost } : {}),
  });
}
