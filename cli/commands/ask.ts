import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { type Client } from '@temporalio/client';
import { type Command } from 'commander';
import { namesRefusal, parseDirectives } from '../../agents';
import { doorAdmissionFromConfig } from '../../infra/door-admission';
import { formatRecord, formatStatusLine } from '../../infra/run-format';
import { composeMessage, sendToThread, watchRun } from '../../infra/thread-client';
import type { MessageOutcome, RunRecord, ThreadInput, ThreadMessage } from '../../workflows/contracts';
import { withCliClient } from '../temporal-client';

export interface AskOptions {
  agent?: string;
  thread?: string;
  model?: string;
  json?: boolean;
}

export interface SentMessage {
  threadId: string;
  messageId: string;
  /** What the thread did with the message: a run (with its id), a refusal, a steer. */
  outcome: MessageOutcome;
}

/** Signal-with-starts the thread with one message and waits until the thread has decided on it. */
export async function sendMessage(
  client: Client,
  taskQueue: string,
  message: string,
  options: AskOptions & { requester?: string; addressedToRun?: boolean },
): Promise<SentMessage> {
  const threadId = options.thread ?? `thread:cli:${randomUUID()}`;
  const threadMessage: ThreadMessage = {
    messageId: `cli:${randomUUID()}`,
    text: composeMessage(message, options),
    requester: { id: options.requester ?? safeUser(), surface: 'cli' },
    ...(options.addressedToRun ? { addressedToRun: true } : {}),
  };
  const input: ThreadInput = { threadId, replyTarget: { kind: 'cli' } };
  const outcome = (await sendToThread(client, taskQueue, {
    threadId,
    input,
    message: threadMessage,
    summary: `CLI thread of ${threadMessage.requester.id}`,
  }))!;
  return { threadId, messageId: threadMessage.messageId, outcome };
}

/** Follows a run to its end, writing a status line whenever its status changes. */
export async function followRun(client: Client, runId: string, write: (line: string) => void): Promise<RunRecord> {
  let last = '';
  const record = await watchRun(client, runId, {
    intervalMs: 300,
    onStatus: (status) => {
      const line = formatStatusLine(status);
      if (line !== last) write(line);
      last = line;
    },
  });
  return record!;
}

/** Starts or continues a thread with one message and returns what became of it. */
export async function ask(
  client: Client,
  taskQueue: string,
  message: string,
  options: AskOptions,
  write: (line: string) => void,
): Promise<{ outcome: MessageOutcome; record?: RunRecord }> {
  const sent = await sendMessage(client, taskQueue, message, options);
  write(`thread ${sent.threadId}`);
  const { outcome } = sent;
  if (outcome.kind !== 'run' || !outcome.runId) {
    write(outcome.reply ?? `message ${outcome.kind}`);
    return { outcome };
  }
  write(`run ${outcome.runId} (${outcome.agent})`);
  return { outcome, record: await followRun(client, outcome.runId, write) };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

export function registerAskCommand(program: Command): void {
  program
    .command('ask')
    .description('start or continue a thread with a message; streams status lines and prints the record')
    .argument('<message>', 'what to ask (directives such as budget:30 or "in owner/repo:" work here too)')
    .option('--agent <agent>', 'run this agent (as agent:<name>)')
    .option('--thread <id>', 'continue this thread (default: a new CLI thread)')
    .option('--model <model>', 'use this model, e.g. scripted:examples/hello.yaml')
    .option('--json', 'print the run record as JSON')
    .action(async (message: string, options: AskOptions) => {
      await withCliClient(async ({ client, taskQueue, loaded }) => {
        // An agent or a model nobody has is refused here, before a thread exists (as at every door).
        const { directives } = parseDirectives(composeMessage(message, options));
        const unknown = namesRefusal(await doorAdmissionFromConfig(loaded).facts(), directives);
        if (unknown) {
          if (options.json) console.log(JSON.stringify({ kind: 'refused', code: unknown.code, reply: unknown.message }, null, 2));
          else console.error(`Not started (${unknown.code}): ${unknown.message}`);
          process.exitCode = 1;
          return;
        }
        const { outcome, record } = await ask(
          client,
          taskQueue,
          message,
          options,
          options.json ? () => undefined : (line) => console.log(line),
        );
        if (!record) {
          if (options.json) console.log(JSON.stringify(outcome, null, 2));
          // Refused (no access, an unknown agent, a model not allowed …): the message did not run.
          if (outcome.kind === 'refused') process.exitCode = 1;
          return;
        }
        console.log(options.json ? JSON.stringify(record, null, 2) : formatRecord(record));
        if (record.outcome === 'failed') process.exitCode = 1;
      });
    });
}
