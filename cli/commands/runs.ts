import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { type Command } from 'commander';
import { type agentRunWorkflowType, runStatusQuery, steerUpdate, stopSignal, type SteerAccepted } from '../../workflows/contracts';
import { Agent, Outcome } from '../../workflows/search-attributes';
import { closedResult } from '../closed-result';
import { withCliClient } from '../temporal-client';
import { formatRecord, formatStatusLine } from '../../infra/run-format';
import { visibilityQuery } from '../../infra/visibility';
import { findStuck, formatStuck } from '../../infra/stuck';
import { formatUncertain, uncertainOf } from './resend';
import { limitOption } from '../options';
import { userInfo } from 'node:os';
import { type ControlAction } from '../../agents';
import { doorAdmissionFromConfig } from '../../infra/door-admission';
import { createControlAdmission } from '../../server/control-admission';
import { type CliClient } from '../temporal-client';

/**
 * The CLI asks the same admission as every door before it steers or stops: an operator at the
 * command line (who holds the Temporal client) is admitted for any workflow that exists.
 */
async function assertCliMay(cli: CliClient, workflowId: string, action: ControlAction, by?: string): Promise<void> {
  const control = createControlAdmission({ client: cli.client, facts: () => doorAdmissionFromConfig(cli.loaded).facts() });
  const decision = await control.decide({ surface: 'cli', userId: by ?? userInfo().username }, workflowId, action);
  // A workflow that does not exist is the command's own answer (`no workflow …`).
  if (!decision.ok && decision.code !== 'not_found') throw new Error(`${action} refused (${decision.code}): ${decision.message}`);
}

export function registerRunsCommand(program: Command): void {
  const runs = program.command('runs').description('list and inspect runs');
  runs
    .command('list')
    .description('recent runs, newest first (from Temporal visibility)')
    .option('--agent <agent>', 'only this agent')
    .addOption(limitOption())
    .option('--json', 'print JSON')
    .option('--stuck', 'instead: open workflows (threads, runs, units, plans) whose workflow task keeps failing (as `switchboard stuck`)')
    .action(async (options: { agent?: string; limit: number; json?: boolean; stuck?: boolean }) => {
      await withCliClient(async ({ client }) => {
        if (options.stuck) return printStuck(client, options.json);
        const query = visibilityQuery({ SwitchboardKind: 'run', Agent: options.agent });
        const rows: Array<{ workflowId: string; status: string; agent: string; outcome: string; started: string }> = [];
        for await (const execution of client.workflow.list({ query })) {
          const attributes = execution.typedSearchAttributes;
          rows.push({
            workflowId: execution.workflowId,
            status: execution.status.name,
            agent: attributes.get(Agent) ?? '',
            outcome: attributes.get(Outcome) ?? '',
            started: execution.startTime.toISOString(),
          });
          if (rows.length >= options.limit) break;
        }
        if (options.json) console.log(JSON.stringify(rows, null, 2));
        else
          for (const row of rows)
            console.log(`${row.started}  ${row.status.padEnd(10)} ${row.agent.padEnd(12)} ${row.outcome.padEnd(9)} ${row.workflowId}`);
      });
    });
  runs
    .command('get')
    .description("a run's record when it has finished, its live status otherwise")
    .argument('<workflowId>', 'the run id, e.g. run:thread:cli:…:1')
    .option('--json', 'print JSON')
    .action(async (workflowId: string, options: { json?: boolean }) => {
      await withCliClient(async ({ client }) => {
        const handle = client.workflow.getHandle<typeof agentRunWorkflowType>(workflowId);
        const description = await handle.describe();
        if (description.status.name === 'RUNNING') {
          const status = await handle.query(runStatusQuery);
          console.log(options.json ? JSON.stringify(status, null, 2) : formatStatusLine(status));
          return;
        }
        const closed = await closedResult<Awaited<ReturnType<typeof handle.result>>>(handle, description.status.name);
        if ('reason' in closed) throw new Error(closed.reason);
        const { record } = closed;
        // A run's answer is delivered by its thread, which lists it when it could not be confirmed.
        const unconfirmed = await uncertainOf(client, workflowId);
        if (options.json) console.log(JSON.stringify({ ...record, ...(unconfirmed.length ? { unconfirmed } : {}) }, null, 2));
        else console.log(formatRecord(record) + formatUncertain(unconfirmed, workflowId));
      });
    });
}

/**
 * `switchboard stuck`: the open workflows whose workflow task keeps failing, of every kind, with
 * why their last task failed; the same set `/healthz` and `switchboard_stuck_workflows` count.
 */
export function registerStuckCommand(program: Command): void {
  program
    .command('stuck')
    .description('open threads, runs, units and plans whose workflow task keeps failing (no progress), and why; exits 1 when it lists any')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      await withCliClient(async ({ client }) => printStuck(client, options.json));
    });
}

/** Lists the stuck workflows; the exit code is 1 when there are any, so a script or a cron check can act on it. */
async function printStuck(client: Client, json: boolean | undefined): Promise<void> {
  const stuck = await findStuck(client);
  if (json) console.log(JSON.stringify(stuck, null, 2));
  else if (stuck.length === 0) console.log('no stuck workflows (threads, runs, units, plans)');
  else for (const entry of stuck) console.log(formatStuck(entry));
  if (stuck.length > 0) process.exitCode = 1;
}

export function registerSteerCommand(program: Command): void {
  program
    .command('steer')
    .description('send a steer message to a running run or unit (validated update: refused when empty or finished)')
    .argument('<workflowId>', 'the run or unit id')
    .argument('<text>', 'the instruction')
    .option('--by <who>', 'who is steering')
    .action(async (workflowId: string, text: string, options: { by?: string }) => {
      await withCliClient(async (cli) => {
        const { client } = cli;
        await assertCliMay(cli, workflowId, 'steer', options.by);
        const handle = client.workflow.getHandle(workflowId);
        // A run answers with how many steers wait for its next turn; a unit only accepts.
        let result: SteerAccepted;
        try {
          result = await handle.executeUpdate(steerUpdate, { args: [{ text, ...(options.by ? { by: options.by } : {}) }] });
        } catch (error) {
          throw new Error(`steer refused: ${await steerRefusal(handle, error)}`);
        }
        console.log(
          result.pending === undefined
            ? 'steer accepted: it joins the next coding round'
            : `steer accepted (${result.pending} pending before the next turn)`,
        );
      });
    });
}

/**
 * Why a steer was not taken, in words: the validator's own reason, or, for a workflow that
 * has already closed (the update never reaches the validator), its outcome.
 */
async function steerRefusal(handle: WorkflowHandle, error: unknown): Promise<string> {
  if (error instanceof WorkflowUpdateFailedError) return error.cause?.message ?? error.message;
  // The server answers an update to a closed workflow as not found, so ask what it is.
  const description = await handle.describe().catch(() => undefined);
  if (!description && error instanceof WorkflowNotFoundError) return `no workflow ${handle.workflowId}`;
  if (description && description.status.name !== 'RUNNING') {
    const outcome = description.typedSearchAttributes.get(Outcome);
    return `the run has finished (${outcome ?? description.status.name.toLowerCase()})`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function registerStopCommand(program: Command): void {
  program
    .command('stop')
    .description('stop a run or unit: the in-flight step is cancelled and it settles as stopped')
    .argument('<workflowId>', 'the run or unit id')
    .option('--reason <reason>', 'why')
    .option('--by <who>', 'who is stopping')
    .action(async (workflowId: string, options: { reason?: string; by?: string }) => {
      await withCliClient(async (cli) => {
        await assertCliMay(cli, workflowId, 'stop', options.by);
        const handle = cli.client.workflow.getHandle(workflowId);
        try {
          await handle.signal(stopSignal, {
            ...(options.reason ? { reason: options.reason } : {}),
            ...(options.by ? { by: options.by } : {}),
          });
        } catch (error) {
          // A finished (or unknown) workflow cannot take a signal: say so in one line, not the server's words.
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          const description = await handle.describe().catch(() => undefined);
          if (!description) throw new Error(`stop refused: no workflow ${workflowId}`);
          const outcome = description.typedSearchAttributes.get(Outcome);
          throw new Error(
            `stop refused: ${workflowId} has already finished (${outcome ?? description.status.name.toLowerCase()}); nothing to stop`,
          );
        }
        console.log(`stop sent to ${workflowId}`);
      });
    });
}
