import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { namespaceRetentionMs } from '../cli/prune-cutoff';
import { SAFETY_MARGIN_MS } from '../cli/payload-prune';
import { resendWorkflowType } from '../workflows/contracts';
import { runCli } from './helpers/cli';
import { testTemporalAddress } from './helpers/temporal';
import { waitFor } from './helpers/wait';

const HOUR = 3_600_000;

/**
 * `switchboard payloads prune` against the suite's Temporal: the default age is the namespace's
 * retention (read with DescribeNamespace) plus the margin, and a workflow Temporal still lists
 * holds the cutoff back to its start (minus the margin) whatever --older-than says.
 */
describe('switchboard payloads prune', () => {
  let dir: string;
  let payloads: string;
  let connection: Connection;
  let client: Client;
  const kit = () => ({ dir, taskQueue: `prune-${randomUUID()}` });
  const env = () => ({ SWITCHBOARD_PAYLOADS_DIR: payloads });

  beforeAll(async () => {
    connection = await Connection.connect({ address: testTemporalAddress() });
    client = new Client({ connection, namespace: 'default' });
  });
  afterAll(async () => connection?.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-payloads-'));
    payloads = join(dir, 'payloads');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A blob file named by a made-up hash, last written `ageMs` ago. */
  function blob(hexDigit: string, ageMs: number, bytes = 100): string {
    const hex = hexDigit.repeat(64);
    mkdirSync(join(payloads, hex.slice(0, 2)), { recursive: true });
    const file = join(payloads, hex.slice(0, 2), hex);
    writeFileSync(file, 'x'.repeat(bytes));
    const when = new Date(Date.now() - ageMs);
    utimesSync(file, when, when);
    return file;
  }
  const exists = (file: string) => statSync(file, { throwIfNoEntry: false }) !== undefined;

  it("defaults to the namespace's retention plus the margin, and --dry-run deletes nothing", async () => {
    const retentionMs = await namespaceRetentionMs(client, 'default');
    const age = retentionMs + SAFETY_MARGIN_MS;
    const old = blob('a', age + HOUR, 300);
    const young = blob('b', age - HOUR, 200);

    const dry = await runCli(kit(), ['payloads', 'prune', '--dry-run', '--json'], env());
    expect(dry.stderr).toBe('');
    const planned = JSON.parse(dry.stdout) as { retentionMs: number; ageMs: number; deleted: { files: number; bytes: number } };
    expect(planned).toMatchObject({ retentionMs, ageMs: age, deleted: { files: 1, bytes: 300 } });
    expect(exists(old)).toBe(true);

    const done = await runCli(kit(), ['payloads', 'prune'], env());
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`Deleted 1 blob (300 bytes); kept 1 blob (200 bytes)`);
    expect(done.stdout).toMatch(/\(retention \S+( \S+)? \+ margin 1d\)/);
    expect(exists(old)).toBe(false);
    expect(exists(young)).toBe(true);
  });

  it('never deletes a blob written after the oldest workflow Temporal still keeps began (minus the margin)', async () => {
    const workflowId = `prune-hold-${randomUUID()}`;
    const handle = await client.workflow.start(resendWorkflowType, {
      taskQueue: `prune-${randomUUID()}`,
      workflowId,
      args: [{ workflowId: 'unit:none', effectKey: 'k', by: 'prune-test' }],
    });
    try {
      await waitFor(async () => (await client.workflow.count(`WorkflowId = "${workflowId}"`)).count > 0);
      const twoHours = blob('c', 2 * HOUR);
      const twoDays = blob('d', 2 * SAFETY_MARGIN_MS);
      const result = await runCli(kit(), ['payloads', 'prune', '--older-than', '1h'], env());
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/held back by \S+ \(\w+, started /);
      expect(exists(twoHours)).toBe(true);
      expect(exists(twoDays)).toBe(false);
    } finally {
      await handle.terminate('test done');
    }
  });

  it('answers a bad --older-than with one line', async () => {
    const result = await runCli(kit(), ['payloads', 'prune', '--older-than', 'soon'], env());
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("--older-than: expected a duration like 36h, 30d or 2w, got 'soon'");
  });
});
