/**
 * Records histories of traced workflows (issue 36; run alone with `npx jest --config
 * jest.record.config.js test/record/issue-36.record.ts`): a thread and its two runs started from
 * the local Slack by a process that exports traces, so every start, signal and activity carries
 * Temporal's trace header and the workflow interceptors (workflows/tracing/) take their traced
 * path. Replaying them checks that tracing changes no command. None overwrites an older history.
 */
import { Client, Connection } from '@temporalio/client';
import { saveHistory } from '../helpers/history';
import { testTemporalAddress } from '../helpers/temporal';
import { startTracedProduct, TRACED_CHANNEL, type TracedProduct } from '../helpers/traced-product';
import { waitUntil } from '../helpers/wait';

jest.setTimeout(240_000);

describe('traced workflows', () => {
  let traced: TracedProduct;
  let connection: Connection;
  beforeAll(async () => {
    // Payloads stay in history (no claim check), so the replay needs nothing but the file.
    traced = await startTracedProduct('record-traced', { config: { payloads: { claimCheckBytes: 256 * 1024 } } });
    connection = await Connection.connect({ address: testTemporalAddress() });
  });
  afterAll(async () => {
    await connection?.close();
    await traced?.close();
  });

  it('a thread with a mention and a reply, and their runs (one with a sandboxed command)', async () => {
    const client = new Client({ connection });
    const asked = await traced.say('agent:explore model:scripted:examples/hello.yaml say hello, traced');
    await traced.answer(asked.ts, 'The sandbox answered');
    await traced.say('model:scripted:examples/hello.yaml and once more', asked.ts);
    const threadId = `thread:slack:T0LOCAL:${TRACED_CHANNEL}:${asked.ts}`;
    for (const n of [1, 2])
      await waitUntil(
        () =>
          client.workflow
            .getHandle(`run:${threadId}:${n}`)
            .describe()
            .then(
              (described) => described.status.name,
              () => 'none',
            ),
        (status) => status === 'COMPLETED',
        90_000,
      );
    // The thread has answered the reply too before its history is taken.
    await waitUntil(
      async () =>
        traced.slack.state.thread(TRACED_CHANNEL, asked.ts).filter((message) => message.metadata?.event_type === 'switchboard_reply'),
      (replies) => replies.length >= 2,
      30_000,
    );
    const history = await client.workflow.getHandle(`run:${threadId}:1`).fetchHistory();
    const headers = JSON.stringify(history.events?.[0]?.workflowExecutionStartedEventAttributes?.header ?? {});
    expect(headers).toContain('_tracer-data');
    console.log(await saveHistory(client, threadId, 'thread/traced-mention-and-reply'));
    console.log(await saveHistory(client, `run:${threadId}:1`, 'run/traced-with-command'));
    console.log(await saveHistory(client, `run:${threadId}:2`, 'run/traced-follow-up'));
  });
});
