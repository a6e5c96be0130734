import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { type DataConverter } from '@temporalio/common';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { type Worker } from '@temporalio/worker';
import { stringify } from 'yaml';
import type { z } from 'zod';
import { createActivities, type ActivityDeps } from '../../activities';
import { DEFAULT_SHIP_SETTINGS, type ShipSettings } from '../../activities/agents/agent-setup';
import { createGitHubIdentities, createRepoSettingsReader, type GitHubIdentities } from '../../activities/github';
import { createPushPolicy } from '../../activities/github/push-policy';
import { DEFAULT_PUSH_RULES } from '../../activities/sandbox/network/push-rules';
import { defaultAgentsConfig, type AgentsConfigInput } from '../../agents/config';
import { sendMessage, followRun, type AskOptions } from '../../cli/commands/ask';
import { type IsolationCheck } from '../../activities/sandbox/isolation';
import { createSandboxHost, type SandboxHost, type SandboxLimits } from '../../activities/sandbox';
import { hostTaskQueue } from '../../infra/host-queue';
import { createLogger } from '../../infra/logger';
import { ResidentQueues } from '../../infra/resident-queues';
import { registeredRepoCache, type RepoCacheSettings } from '../../activities/sandbox/repo-cache/repo-cache';
import { createSwitchboardWorker, workerRunStarts } from '../../infra/worker';
import type { RunRecord } from '../../workflows/contracts';
import { KIT_SCRIPTS } from './scripts';
import { McpConfigSchema, mcpSetupOf } from '../../infra/config/mcp-section';
import { productWorker, sharedEnvironment, uniqueTaskQueue } from './temporal';

export interface RunKit {
  env: TestWorkflowEnvironment;
  /** The kit's client (with the kit's codec, when it has one). */
  client: Client;
  taskQueue: string;
  dir: string;
  dataDir: string;
  /** The worker's sandbox host (its holders, doors and readiness). */
  sandboxHost: SandboxHost;
  /** Writes a scripted model file into the kit's scripted directory (`kit`) and returns its model id, `scripted:kit/<name>.yaml`. */
  script(name: string, turns: unknown[]): string;
  /** Sends a message to a thread (new unless `thread` is given) and returns the run id it started. */
  start(message: string, options?: AskOptions & { requester?: string }): Promise<{ threadId: string; runId: string }>;
  result(runId: string): Promise<RunRecord>;
  /** This kit's host queue (with `hostQueue`): where the workspaces it prepares are used and released. */
  hostTaskQueue?: string;
  /** The resident queues this kit polls (with `residentQueues`). */
  residentQueues?: ResidentQueues;
  /** Stops polling the shared queue only; the host queue (with `hostQueue`) keeps serving. */
  stopSharedWorker(): Promise<void>;
  close(): Promise<void>;
}

/** A worker on the real product bundle and real activities (scripted model, real sandbox), on its own task queue. */
export interface RunKitOptions {
  agents?: AgentsConfigInput;
  env?: TestWorkflowEnvironment;
  /** GitHub credentials (e.g. against the local GitHub); none by default. */
  github?: GitHubIdentities;
  /** Ship and review settings (defaults otherwise). */
  ship?: Partial<ShipSettings>;
  /** A folder of custom `*.agent.yaml` files (built-ins only by default). */
  customAgentsDir?: string;
  /** web_fetch and web_search backends (both off by default, so the runs do not offer them). */
  web?: ActivityDeps['web'];
  /** Configured skill folders. */
  skillDirs?: string[];
  /** Slack delivery (e.g. against the local Slack). */
  slack?: ActivityDeps['slack'];
  /** `models.allowed`: what a chat `model:` may name (default: the configured models). */
  allowedModels?: string[];
  /** A payload codec for the worker and the kit's client alike (e.g. the claim check); none by default. */
  dataConverter?: DataConverter;
  /** The worker's own, when it differs (`dataConverterFromConfig(config, { worker: true })`, as infra/main.ts makes it). */
  workerDataConverter?: DataConverter;
  /** Wraps the activities before the worker gets them (the bench marks when a model turn starts). */
  wrapActivities?: (activities: ReturnType<typeof createActivities>) => object;
  /** `prices.models`: the price table the model turns are costed by (none by default). */
  prices?: ActivityDeps['models']['prices'];
  /** More model settings (e.g. an Anthropic or OpenAI base URL and key pointing at a local server). */
  models?: Partial<ActivityDeps['models']>;
  /** The `spend` section: spend caps (none by default). */
  spend?: ActivityDeps['spend'];
  /** How the worker probes for bubblewrap (a test simulates a machine without it); the real probe by default. */
  sandboxProbe?: () => Promise<IsolationCheck>;
  /** The shared task queue (a fresh one by default): kits on one queue are several workers of one deployment. */
  taskQueue?: string;
  /** Serve a host queue of this kit's own, as a deployed worker does (infra/main.ts): workspaces are used on it. */
  hostQueue?: boolean;
  /**
   * Poll a resident queue per repository this kit's host holds a cache of, as a deployed worker
   * does (infra/resident-queues.ts): resident checkouts prefer it. Off by default.
   */
  residentQueues?: boolean;
  /** `sandbox.repoCache` (the defaults otherwise; `enabled: false` turns the caches off). */
  repoCache?: Partial<RepoCacheSettings>;
  /** The `mcp` section (servers and attachments), and the environment HTTP servers' credentials are read from. */
  mcp?: { config: z.input<typeof McpConfigSchema>; env?: NodeJS.ProcessEnv };
  /** `sandbox.limits` (e.g. `diskMiB: 0` for folder disks, no loop device per workspace); the defaults otherwise. */
  sandboxLimits?: Partial<SandboxLimits>;
}

export async function startRunKit(label: string, options: RunKitOptions = {}): Promise<RunKit> {
  const { agents = {}, env } = options;
  const environment = env ?? (await sharedEnvironment());
  // With a codec, the kit's client must decode what the worker encoded.
  const client = options.dataConverter
    ? new Client({
        connection: environment.connection,
        namespace: environment.namespace ?? 'default',
        dataConverter: options.dataConverter,
      })
    : environment.client;
  const taskQueue = options.taskQueue ?? uniqueTaskQueue(label);
  const dir = mkdtempSync(join(tmpdir(), `switchboard-${label}-`));
  const dataDir = join(dir, 'data');
  const hostQueue = options.hostQueue ? hostTaskQueue(taskQueue, dir) : undefined;
  // Scripts apart from the workspaces (under data/), so nothing a run writes can become a script.
  const scripts = join(dir, 'scripts');
  mkdirSync(scripts);
  const logger = createLogger({ level: 'silent' });
  const identities = options.github ?? createGitHubIdentities({ apiUrl: 'http://127.0.0.1:9/api/v3', gitUrl: 'http://127.0.0.1:9' });
  const resident: { queues?: ResidentQueues } = {};
  const sandbox = {
    dataDir,
    ...(options.repoCache ? { repoCache: options.repoCache } : {}),
    onRepoCacheChange: () => void resident.queues?.sync(),
    identityToken: (scope: 'read' | 'write') => identities.tokenFor(scope),
    gitBaseUrl: identities.gitUrl,
    ...(hostQueue ? { hostTaskQueue: hostQueue } : {}),
    ...(options.sandboxProbe ? { probe: options.sandboxProbe } : {}),
    ...(options.sandboxLimits ? { limits: options.sandboxLimits } : {}),
    // With a GitHub, the door judges pushes as the product's does: the repository's settings, the pull request's state.
    ...(options.github
      ? { pushPolicy: createPushPolicy({ rules: DEFAULT_PUSH_RULES, settings: createRepoSettingsReader({ identities }), identities }) }
      : {}),
  };
  const sandboxHost = createSandboxHost(sandbox);
  const mcp = options.mcp ? McpConfigSchema.parse(options.mcp.config) : undefined;
  const activities = createActivities({
    logger,
    models: {
      baseDir: dir,
      scriptedDirs: { [KIT_SCRIPTS]: scripts },
      logger,
      ...(options.prices ? { prices: options.prices } : {}),
      ...options.models,
    },
    agents: {
      config: defaultAgentsConfig(agents),
      ...(options.allowedModels ? { allowedModels: options.allowedModels } : {}),
      ship: { ...DEFAULT_SHIP_SETTINGS, ...options.ship },
      ...(options.customAgentsDir ? { customAgentsDir: options.customAgentsDir } : {}),
      ...(mcp ? { mcp: mcpSetupOf(mcp) } : {}),
    },
    ...(mcp ? { mcp: { servers: mcp.servers, ...(options.mcp?.env ? { env: options.mcp.env } : {}) } } : {}),
    // One gate, as the deployment's config gives both (review.addressSeverity): a repository's settings fall back to it.
    github: { identities, ...(options.ship?.addressSeverity ? { defaultSeverity: options.ship.addressSeverity } : {}) },
    sandbox,
    sandboxHost,
    units: { client, taskQueue },
    // As a deployed worker does: threads start their runs through the worker's own connection, eagerly.
    runStarts: workerRunStarts(environment.nativeConnection, environment.namespace ?? 'default', options.dataConverter),
    ...(options.web ? { web: options.web } : {}),
    ...(options.skillDirs ? { skillDirs: options.skillDirs } : {}),
    ...(options.slack ? { slack: options.slack } : {}),
    ...(options.spend ? { spend: options.spend } : {}),
  });
  const worker: Worker = await productWorker(
    environment,
    taskQueue,
    options.wrapActivities ? options.wrapActivities(activities) : activities,
    options.workerDataConverter ?? options.dataConverter,
  );
  const running = worker.run();
  const hostWorker = hostQueue
    ? await createSwitchboardWorker({
        connection: environment.nativeConnection,
        namespace: environment.namespace ?? 'default',
        taskQueue: hostQueue,
        activities: options.wrapActivities ? options.wrapActivities(activities) : activities,
        activitiesOnly: true,
        ...((options.workerDataConverter ?? options.dataConverter)
          ? { dataConverter: options.workerDataConverter ?? options.dataConverter }
          : {}),
      })
    : undefined;
  const hostRunning = hostWorker?.run();
  if (options.residentQueues) {
    resident.queues = new ResidentQueues({
      connection: environment.nativeConnection,
      namespace: environment.namespace ?? 'default',
      taskQueue,
      activities: options.wrapActivities ? options.wrapActivities(activities) : activities,
      repos: () => registeredRepoCache(sandboxHost)?.repos() ?? Promise.resolve([]),
      ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    });
    await resident.queues.sync();
  }
  const stopShared = async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  };
  return {
    env: environment,
    client,
    taskQueue,
    dir,
    dataDir,
    sandboxHost,
    script(name, turns) {
      writeFileSync(join(scripts, `${name}.yaml`), stringify({ turns }));
      return `scripted:${KIT_SCRIPTS}/${name}.yaml`;
    },
    async start(message, options = {}) {
      const sent = await sendMessage(client, taskQueue, message, { requester: 'tester', ...options });
      if (sent.outcome.kind !== 'run' || !sent.outcome.runId) throw new Error(`no run started: ${JSON.stringify(sent.outcome)}`);
      return { threadId: sent.threadId, runId: sent.outcome.runId };
    },
    result: (runId) => followRun(client, runId, () => undefined),
    ...(hostQueue ? { hostTaskQueue: hostQueue } : {}),
    stopSharedWorker: stopShared,
    ...(resident.queues ? { residentQueues: resident.queues } : {}),
    async close() {
      await resident.queues?.stop();
      await stopShared();
      hostWorker?.shutdown();
      await hostRunning;
      sandboxHost.shutDoors();
      if (!env) await environment.teardown();
      // Deleting the workspaces ends their sandbox holders (and any detached jobs).
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
