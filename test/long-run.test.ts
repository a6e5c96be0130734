import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { dataConverterFromConfig } from '../infra/payloads';
import { startRunKit, type RunKit } from './helpers/run-kit';

jest.setTimeout(240_000);

const CALLS = 300;
/** Temporal warns at 512 KiB per payload; the claim check keeps every one far below. */
const MAX_PAYLOAD_BYTES = 16 * 1024;
/** History grows by a bounded amount per turn, whatever the transcript's size so far. */
const MAX_HISTORY_BYTES_PER_TURN = 24 * 1024;

/** 30,000 characters: 1,000 lines of 30 (call number, line number, filler). */
function command(call: number): string {
  return `awk 'BEGIN{for(i=1;i<=1000;i++) printf "call %03d line %04d abcdefghij\\n", ${call % 1000}, i}'`;
}

describe('a long run (300 bash calls of 30,000 characters) stays bounded', () => {
  let kit: RunKit;
  let payloads: string;
  beforeAll(async () => {
    payloads = mkdtempSync(join(tmpdir(), 'switchboard-payloads-'));
    const dataConverter = dataConverterFromConfig({ dataDir: payloads, payloads: { claimCheckBytes: 8 * 1024, dir: payloads } });
    kit = await startRunKit('long-run', { dataConverter });
  });
  afterAll(async () => {
    await kit?.close();
    rmSync(payloads, { recursive: true, force: true });
  });

  it('completes, with every payload small and history per turn bounded; older output is cut and the window compacted', async () => {
    const turns = Array.from({ length: CALLS }, (_, k) => ({
      text: `Step ${k + 1}.`,
      toolCalls: [{ name: 'bash', input: { command: command(k + 1) } }],
    }));
    const model = kit.script('long', [...turns, { text: 'All 300 outputs read.' }]);
    const { runId } = await kit.start('read 300 long outputs', { agent: 'explore', model });
    const record = await kit.result(runId);
    expect(record).toMatchObject({ outcome: 'completed', turns: CALLS + 1, finalText: 'All 300 outputs read.' });
    expect(record.toolCalls.filter((call) => call.name === 'bash' && call.ok)).toHaveLength(CALLS);
    // 300 results of 30 KB could not stay whole in a 128k-token window: older turns were summarised.
    expect(record.compactions).toBeGreaterThanOrEqual(1);

    const histories = await chainOfRuns(kit.client, runId);
    let largest = 0;
    let bytes = 0;
    for (const history of histories) {
      bytes += temporal.api.history.v1.History.encode(history).finish().length;
      largest = Math.max(largest, largestPayload(history));
    }
    // Printed for the record (docs/performance.md); the assertions are the bounds.
    console.log(
      `long run: ${histories.length} runs, ${bytes} history bytes (${Math.round(bytes / record.turns)} per turn), largest payload ${largest} B`,
    );
    expect(largest).toBeLessThan(MAX_PAYLOAD_BYTES);
    expect(bytes / record.turns).toBeLessThan(MAX_HISTORY_BYTES_PER_TURN);
  });
});

/** The histories of a workflow id's runs, from the first to the last, following continue-as-new back. */
async function chainOfRuns(client: Client, workflowId: string): Promise<temporal.api.history.v1.IHistory[]> {
  const histories: temporal.api.history.v1.IHistory[] = [];
  let runId: string | undefined = undefined;
  for (;;) {
    const history: temporal.api.history.v1.IHistory = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.unshift(history);
    const previous: string | null | undefined = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return histories;
    runId = previous;
  }
}

/** The largest payload `data` anywhere in a history's events. */
function largestPayload(history: temporal.api.history.v1.IHistory): number {
  let largest = 0;
  const visit = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if (value instanceof Uint8Array) return;
    const record = value as Record<string, unknown>;
    if (record.data instanceof Uint8Array && 'metadata' in record) largest = Math.max(largest, record.data.length);
    for (const child of Object.values(record)) visit(child);
  };
  for (const event of history.events ?? []) visit(event);
  return largest;
}
