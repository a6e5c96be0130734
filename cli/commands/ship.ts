import { userInfo } from 'node:os';
import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { type Command } from 'commander';
import { pullRequestUnitId, taskUnitId, unitSummary } from '../../workflows/unit/unit-id';
import { shipUnitWorkflowType, steerSignal, unitStateQuery, type ShipUnitInput, type UnitState } from '../../workflows/contracts';
import { isRepositoryName } from '../../tools/github-fields';
import { closedResult } from '../closed-result';
import { withCliClient } from '../temporal-client';
import { visibilityQuery } from '../../infra/visibility';
import { missingSettings } from '../../infra/preflight';
import { unitDetails } from '../../activities/units/unit-client';
import { formatUncertain, uncertainOf } from './resend';
import { Outcome, Phase, PullRequest } from '../../workflows/search-attributes';
import { limitOption } from '../options';
import { admitStart, namesRefusal } from '../../agents';
import { doorAdmissionFromConfig } from '../../infra/door-admission';

/** What `switchboard ship` was asked for: an exact PR, or a change in a repository. */
export type ShipTarget = { kind: 'pull_request'; repo: string; pullRequest: number } | { kind: 'task'; repo: string; request: string };

/**
 * Reads `ship`'s arguments. A single word shaped like `owner/name#…` is a PR reference and
 * must be exact; anything else is a request, which needs `--repo`. Throws a one-line reason.
 */
export function parseShipTarget(target: string, repo?: string): ShipTarget {
  const text = target.trim();
  if (/^[^\s/#]+\/[^\s#]+#/.test(text)) {
    const match = /^([^\s/#]+\/[^\s#]+)#(\d+)$/.exec(text);
    const number = match ? Number(match[2]) : NaN;
    if (!match || !isRepositoryName(match[1]) || !Number.isSafeInteger(number) || number < 1) {
      throw new Error(`not a pull request reference: '${text}' (expected owner/name#<number>, e.g. acme/app#7)`);
    }
    return { kind: 'pull_request', repo: match[1], pullRequest: number };
  }
  if (!text) throw new Error('say what to ship: owner/name#<number>, or a request with --repo owner/name');
  if (!repo) throw new Error('a request needs its repository: --repo owner/name (or give a pull request as owner/name#<number>)');
  if (!isRepositoryName(repo)) throw new Error(`not a repository: '${repo}' (expected owner/name)`);
  return { kind: 'task', repo, request: text };
}

/**
 * Starts the unit on its own id, or — one unit per PR or slug — steers the one already there
 * with the request (an exact PR with no instruction just reports that it is running).
 */
export async function startOrSteerUnit(
  client: Client,
  taskQueue: string,
  input: ShipUnitInput,
  where: { namespace?: string; githubWebUrl?: string } = {},
): Promise<'started' | 'steered' | 'running'> {
  try {
    await client.workflow.start(shipUnitWorkflowType, {
      workflowId: input.unitId,
      taskQueue,
      args: [input],
      staticSummary: unitSummary(input),
      staticDetails: unitDetails(input, where),
    });
    return 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    if (!input.request) return 'running';
    await client.workflow.getHandle(input.unitId).signal(steerSignal, { text: input.request, by: input.requester.id });
    return 'steered';
  }
}

/** `switchboard ship …` and `switchboard units list|get`. */
export function registerShipCommands(program: Command): void {
  registerShip(program);
  registerUnits(program);
}

function registerShip(program: Command): void {
  program
    .command('ship')
    .description(
      'start a ship unit for an exact PR (owner/name#n) or for a change (a request with --repo); a second request steers the unit',
    )
    .argument('<target>', 'owner/name#<number>, or the change asked for')
    .argument('[instruction]', 'for a PR: what to do beyond review (sent as a steer when the unit exists)')
    .option('--repo <owner/name>', 'the repository of a requested change')
    .option('--model <model>', "the model the unit's runs use")
    .option('--budget <minutes>', "narrow the unit's budget and its runs' to this many minutes (never widens them)")
    .option('--json', 'print JSON')
    .action(
      async (
        target: string,
        instruction: string | undefined,
        options: { repo?: string; model?: string; budget?: string; json?: boolean },
      ) => {
        let parsed: ShipTarget;
        try {
          parsed = parseShipTarget(target, options.repo);
        } catch (error) {
          console.error((error as Error).message);
          process.exitCode = 1;
          return;
        }
        const budgetMinutes = options.budget === undefined ? undefined : Number(options.budget);
        if (budgetMinutes !== undefined && (!Number.isSafeInteger(budgetMinutes) || budgetMinutes < 1)) {
          console.error(`--budget: expected a whole number of minutes, got '${options.budget}'`);
          process.exitCode = 1;
          return;
        }
        await withCliClient(async ({ client, taskQueue, loaded }) => {
          const requester = userInfo().username;
          // The CLI asks the same admission as every door: `ship` for this operator (access and the
          // model; the sandbox is the worker's, so a unit on a worker that cannot isolate refuses itself).
          const facts = await doorAdmissionFromConfig(loaded).facts();
          const person = { surface: 'cli' as const, userId: requester };
          const admitted =
            namesRefusal(facts, { ...(options.model ? { model: options.model } : {}) }) ??
            admitStart(facts, {
              person,
              agent: 'ship',
              repo: parsed.repo,
              ...(options.model ? { model: options.model } : {}),
            });
          if (!admitted.ok) {
            console.error(`Not started (${admitted.code}): ${admitted.message}`);
            process.exitCode = 1;
            return;
          }
          const request = parsed.kind === 'task' ? parsed.request : instruction?.trim() || undefined;
          const unitId =
            parsed.kind === 'task' ? taskUnitId(parsed.repo, parsed.request) : pullRequestUnitId(parsed.repo, parsed.pullRequest);
          // A new unit reads and writes GitHub and calls its model: what is missing is refused
          // here, before anything starts (a running unit being steered already has them).
          const missing = (await isRunning(client, unitId))
            ? []
            : missingSettings(loaded, { github: ['read', 'write'], ...(options.model ? { model: options.model } : {}) });
          if (missing.length > 0) {
            console.error(`Not started: a ship unit needs ${missing.join('; and ')}.`);
            process.exitCode = 1;
            return;
          }
          const input: ShipUnitInput = {
            unitId,
            repo: parsed.repo,
            replyTarget: { kind: 'cli' },
            requester: { id: requester, surface: 'cli' },
            ...(request ? { request } : {}),
            ...(parsed.kind === 'pull_request' ? { pullRequest: parsed.pullRequest } : {}),
            ...(options.model ? { model: options.model } : {}),
            ...(budgetMinutes !== undefined ? { budgetMinutes } : {}),
          };
          const status = await startOrSteerUnit(client, taskQueue, input, {
            namespace: loaded.config.temporal.namespace,
            githubWebUrl: loaded.config.github.gitUrl,
          });
          const words = {
            started: `Started ship unit ${unitId}.`,
            steered: `Ship unit ${unitId} already exists; your request was sent to it as a steer.`,
            running: `Ship unit ${unitId} is already running (one unit per PR).`,
          };
          console.log(options.json ? JSON.stringify({ unitId, status }) : words[status]);
        });
      },
    );
}

async function isRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

function registerUnits(program: Command): void {
  const units = program.command('units').description('list and inspect ship units');
  units
    .command('list')
    .description('ship units, newest first (from Temporal visibility, which lags a moment)')
    .option('--repo <owner/name>', 'only this repository')
    .addOption(limitOption())
    .option('--json', 'print JSON')
    .action(async (options: { repo?: string; limit: number; json?: boolean }) => {
      await withCliClient(async ({ client }) => {
        const query = visibilityQuery({ SwitchboardKind: 'unit', Repo: options.repo });
        const rows: Array<{ unitId: string; status: string; phase?: string; pullRequest?: number; outcome?: string }> = [];
        for await (const execution of client.workflow.list({ query })) {
          const attributes = execution.typedSearchAttributes;
          const [phase, pullRequest, outcome] = [attributes.get(Phase), attributes.get(PullRequest), attributes.get(Outcome)];
          rows.push({
            unitId: execution.workflowId,
            status: execution.status.name,
            ...(phase !== undefined ? { phase } : {}),
            ...(pullRequest !== undefined ? { pullRequest } : {}),
            ...(outcome !== undefined ? { outcome } : {}),
          });
          if (rows.length >= options.limit) break;
        }
        if (options.json) console.log(JSON.stringify(rows, null, 2));
        else
          for (const row of rows)
            console.log(
              `${row.status.padEnd(10)} ${(row.phase ?? '').padEnd(12)} ${(row.pullRequest ? `#${row.pullRequest}` : '-').padEnd(6)} ${(row.outcome ?? '').padEnd(13)} ${row.unitId}`,
            );
      });
    });
  units
    .command('get')
    .description("a unit's live state while it runs (the `state` query), its record once settled")
    .argument('<unitId>', 'e.g. unit:acme/app#7')
    .option('--json', 'print JSON')
    .action(async (unitId: string, options: { json?: boolean }) => {
      await withCliClient(async ({ client }) => {
        const handle = client.workflow.getHandle<typeof shipUnitWorkflowType>(unitId);
        const description = await handle.describe();
        if (description.status.name === 'RUNNING') {
          const state = await handle.query(unitStateQuery);
          console.log(
            options.json ? JSON.stringify(state, null, 2) : formatState(state) + formatUncertain(state.unconfirmed ?? [], unitId),
          );
          return;
        }
        const closed = await closedResult<Awaited<ReturnType<typeof handle.result>>>(handle, description.status.name);
        if ('reason' in closed) throw new Error(closed.reason);
        const { record } = closed;
        // A settled unit's resends are resendWorkflows: their decisions are folded in.
        const unconfirmed = record.unconfirmed?.length ? await uncertainOf(client, unitId) : [];
        if (options.json) console.log(JSON.stringify({ ...record, ...(unconfirmed.length ? { unconfirmed } : {}) }, null, 2));
        else console.log(record.report + formatUncertain(unconfirmed, unitId));
      });
    });
}

function formatState(state: UnitState): string {
  const review = state.lastReview ? `, last review ${state.lastReview.verdict} on ${state.lastReview.commitSha.slice(0, 12)}` : '';
  const checks = state.checks ? `, checks ${state.checks.state}` : '';
  const timer = state.nextTimer ? `, next ${state.nextTimer.purpose} at ${state.nextTimer.at}` : '';
  const reruns = (state.rerunRounds ?? []).map(
    (rerun) => `\n${rerun.review ? `the review of round ${rerun.round}` : `round ${rerun.round}`} ran again: ${rerun.reason}`,
  );
  return `${state.unitId}: ${state.phase}, round ${state.round} of ${state.maxRounds + 1}, ${state.pullRequest ? `PR #${state.pullRequest}` : 'no PR yet'}${review}${checks}${timer}${reruns.join('')}`;
}
