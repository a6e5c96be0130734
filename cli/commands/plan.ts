import { userInfo } from 'node:os';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type Command } from 'commander';
import { isRepositoryName } from '../../tools/github-fields';
import { visibilityQuery } from '../../infra/visibility';
import { planStateQuery, planWorkflowType, type PlanInput, type PlanRecord, type PlanState } from '../../workflows/contracts';
import { Outcome, Phase, Repo } from '../../workflows/search-attributes';
import { readPlanFile } from '../plan-file';
import { withCliClient } from '../temporal-client';
import { limitOption } from '../options';

/** `switchboard plan <plan.yaml>` and `switchboard plans list|get`. */
export function registerPlanCommands(program: Command): void {
  program
    .command('plan')
    .description('start a plan from a YAML file: units with dependencies, started in order and (with merge authority) merged in order')
    .argument('<file>', 'the plan, e.g. examples/plan.yaml')
    .option('--repo <owner/name>', "the repository (overrides the file's repo)")
    .option('--model <model>', "the model the units' runs use (overrides the file's model)")
    .option('--wait', 'wait until the plan ends and print its report')
    .option('--json', 'print JSON')
    .action(async (file: string, options: { repo?: string; model?: string; wait?: boolean; json?: boolean }) => {
      const read = readPlanFile(file);
      const repo = options.repo ?? ('plan' in read ? read.plan.repo : undefined);
      const problems = 'problems' in read ? read.problems : [];
      if (options.repo !== undefined && !isRepositoryName(options.repo))
        problems.push(`--repo: not a repository: '${options.repo}' (expected owner/name)`);
      else if (problems.length === 0 && !repo) problems.push(`${file}: repo: is required (or give --repo owner/name)`);
      if (problems.length > 0 || !('plan' in read) || !repo) {
        for (const problem of problems) console.error(problem);
        process.exitCode = 1;
        return;
      }
      const { plan } = read;
      const planId = `plan:${repo}:${plan.name}`;
      const model = options.model ?? plan.model;
      const input: PlanInput = {
        planId,
        repo,
        units: plan.units,
        replyTarget: { kind: 'cli' },
        requester: { id: userInfo().username, surface: 'cli' },
        ...(model ? { model } : {}),
        ...(plan.mergeAuthority !== undefined ? { mergeAuthority: plan.mergeAuthority } : {}),
      };
      await withCliClient(async ({ client, taskQueue }) => {
        let handle;
        try {
          handle = await client.workflow.start(planWorkflowType, {
            workflowId: planId,
            taskQueue,
            args: [input],
            staticSummary: `plan ${repo}: ${plan.units.map((unit) => unit.key).join(', ')}`.slice(0, 200),
          });
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          console.error(`Plan ${planId} is already running; see \`switchboard plans get ${planId}\`.`);
          process.exitCode = 1;
          return;
        }
        if (!options.wait) {
          console.log(
            options.json ? JSON.stringify({ planId, status: 'started' }) : `Started plan ${planId} (${plan.units.length} units).`,
          );
          return;
        }
        if (!options.json) console.log(`Started plan ${planId} (${plan.units.length} units); waiting for it to end.`);
        const record = await handle.result();
        console.log(options.json ? JSON.stringify(record, null, 2) : `${record.report}\n${formatUnits(record)}`);
        if (record.outcome !== 'completed') process.exitCode = 1;
      });
    });

  const plans = program.command('plans').description('list and inspect plans');
  plans
    .command('list')
    .description('plans, newest first (from Temporal visibility, which lags a moment)')
    .option('--repo <owner/name>', 'only this repository')
    .addOption(limitOption())
    .option('--json', 'print JSON')
    .action(async (options: { repo?: string; limit: number; json?: boolean }) => {
      await withCliClient(async ({ client }) => {
        const rows: Array<{ planId: string; status: string; repo?: string; phase?: string; outcome?: string }> = [];
        for await (const execution of client.workflow.list({ query: visibilityQuery({ SwitchboardKind: 'plan', Repo: options.repo }) })) {
          const attributes = execution.typedSearchAttributes;
          const [repo, phase, outcome] = [attributes.get(Repo), attributes.get(Phase), attributes.get(Outcome)];
          rows.push({
            planId: execution.workflowId,
            status: execution.status.name,
            ...(repo !== undefined ? { repo } : {}),
            ...(phase !== undefined ? { phase } : {}),
            ...(outcome !== undefined ? { outcome } : {}),
          });
          if (rows.length >= options.limit) break;
        }
        if (options.json) console.log(JSON.stringify(rows, null, 2));
        else
          for (const row of rows)
            console.log(`${row.status.padEnd(10)} ${(row.phase ?? '').padEnd(8)} ${(row.outcome ?? '').padEnd(9)} ${row.planId}`);
      });
    });
  plans
    .command('get')
    .description("a plan's live state while it runs (the `state` query), its record once ended")
    .argument('<planId>', 'e.g. plan:acme/app:greeting')
    .option('--json', 'print JSON')
    .action(async (planId: string, options: { json?: boolean }) => {
      await withCliClient(async ({ client }) => {
        const handle = client.workflow.getHandle(planId);
        const description = await handle.describe();
        if (description.status.name === 'RUNNING') {
          const state = await handle.query(planStateQuery);
          console.log(options.json ? JSON.stringify(state, null, 2) : `${planId}: running\n${formatUnits(state)}`);
          return;
        }
        const record = (await handle.result()) as PlanRecord;
        console.log(options.json ? JSON.stringify(record, null, 2) : `${record.report}\n${formatUnits(record)}`);
      });
    });
}

function formatUnits(state: PlanState): string {
  return state.units
    .map(
      (unit) =>
        `  ${unit.key.padEnd(16)} ${unit.status.padEnd(8)} ${(unit.pullRequest ? `#${unit.pullRequest}` : '-').padEnd(6)} ${unit.unitId}${unit.dependsOn.length ? ` (after ${unit.dependsOn.join(', ')})` : ''}`,
    )
    .join('\n');
}
