import { type WorkflowHandle } from '@temporalio/client';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { type ShipSettings } from '../../activities/agents/agent-setup';
import { type AgentsConfigInput } from '../../agents';
import { createGitHubIdentities } from '../../activities/github';
import { startLocalGitHub, type LocalGitHub } from '../../emulators/local-github';
import { shipUnitWorkflowType, type ShipUnitInput, type ShipUnitWorkflow } from '../../workflows/contracts';
import { startRunKit, type RunKit, type RunKitOptions } from './run-kit';

export const REPO = 'acme/app';

export interface ShipKit {
  kit: RunKit;
  github: LocalGitHub;
  /** One scripted model for the unit's coding and review runs (turns chosen by the request text). */
  model(turns: unknown[]): string;
  /** Starts a unit; its handle takes the unit's signals and queries from the contracts. */
  start(input: Partial<ShipUnitInput> & { unitId: string }): Promise<WorkflowHandle<ShipUnitWorkflow>>;
  close(): Promise<void>;
}

/** A run kit whose GitHub is a local GitHub with one repository, for ship unit tests. */
export async function startShipKit(
  label: string,
  options: {
    env?: TestWorkflowEnvironment;
    ship?: Partial<ShipSettings>;
    agents?: AgentsConfigInput;
    /** Where the local GitHub delivers its (signed) webhooks; none by default. */
    webhooks?: { url: string; secret: string };
    /** Wraps the worker's activities (e.g. a worker whose agent setup differs). */
    wrapActivities?: RunKitOptions['wrapActivities'];
    /** More model settings (a local model server's URL and key). */
    models?: RunKitOptions['models'];
    /** Run-kit options passed on as they are (a task queue shared with another kit, host and resident queues, the repository cache). */
    kit?: Pick<RunKitOptions, 'taskQueue' | 'hostQueue' | 'residentQueues' | 'repoCache'>;
    /** A local GitHub to share with another kit (its own otherwise); closed by its owner. */
    github?: LocalGitHub;
    /** The `spend` section (spend caps and reservations); none by default. */
    spend?: RunKitOptions['spend'];
    /** Payload codecs (the claim check) for the kit's client and its worker. */
    dataConverter?: RunKitOptions['dataConverter'];
    workerDataConverter?: RunKitOptions['workerDataConverter'];
  } = {},
): Promise<ShipKit> {
  const ownGitHub = !options.github;
  const github =
    options.github ??
    (await startLocalGitHub({
      tokens: { read: ['read-token'], write: ['write-token'] },
      ...(options.webhooks ? { webhookUrl: options.webhooks.url, webhookSecret: options.webhooks.secret } : {}),
    }));
  if (!github.state.repo('acme', 'app'))
    github.createRepo('acme', 'app', { 'README.md': '# app\n', 'src/sum.js': 'module.exports = (a, b) => a + b;\n' });
  const identities = createGitHubIdentities({
    apiUrl: github.apiUrl,
    gitUrl: github.gitUrl,
    tokens: { read: 'read-token', write: 'write-token' },
  });
  const kit = await startRunKit(label, {
    github: identities,
    ...(options.env ? { env: options.env } : {}),
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.wrapActivities ? { wrapActivities: options.wrapActivities } : {}),
    ...(options.models ? { models: options.models } : {}),
    ...(options.spend ? { spend: options.spend } : {}),
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    ...(options.workerDataConverter ? { workerDataConverter: options.workerDataConverter } : {}),
    ship: { checksPollSeconds: 10, ...options.ship },
    ...options.kit,
  });
  return {
    kit,
    github,
    model: (turns) => kit.script(`${label}-model`, turns),
    async start(input) {
      return kit.env.client.workflow.start(shipUnitWorkflowType, {
        workflowId: input.unitId,
        taskQueue: kit.taskQueue,
        args: [{ repo: REPO, replyTarget: { kind: 'cli' }, requester: { id: 'tester', surface: 'cli' }, ...input }],
      });
    },
    async close() {
      await kit.close();
      if (ownGitHub) await github.close();
    },
  };
}

const finding = {
  severity: 'minor',
  path: 'README.md',
  line: 1,
  title: 'The heading lost its greeting',
  scenario: 'A reader opens the README and finds no greeting.',
  impact: 'The change does not do what was asked.',
};

/** Coding adds a line; the first review asks for a fix, later ones approve. */
export function findingThenApprovalScript(ship: ShipKit, name: string): string {
  return ship.kit.script(name, [
    {
      alternatives: [
        {
          when: { lastUserIncludes: '(review 1 of this unit)' },
          text: 'One finding.',
          toolCalls: [
            { name: 'submit_review', input: { verdict: 'request_changes', summary: 'One bounded defect.', findings: [finding] } },
          ],
        },
        {
          when: { lastUserIncludes: 'of this unit)' },
          text: 'Looks right.',
          toolCalls: [{ name: 'submit_review', input: { verdict: 'approve', summary: 'Good.', findings: [] } }],
        },
        {
          when: { lastUserIncludes: 'The review asks' },
          text: 'Fixing.',
          toolCalls: [{ name: 'bash', input: { command: 'echo "Hello, reader." >> README.md' } }],
        },
        {
          text: 'Adding the greeting.',
          toolCalls: [
            { name: 'bash', input: { command: 'echo "Hello." >> README.md' } },
            { name: 'submit_description', input: { title: 'Add a greeting', body: 'Adds a greeting line.' } },
          ],
        },
      ],
    },
    { text: 'Done: {{lastToolResult}}' },
  ]);
}
