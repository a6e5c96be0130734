import { proxyActivities } from '@temporalio/workflow';
import type { AgentSetup } from '../../activities/agents/agent-setup';
import type { GitHubActivities } from '../../activities/github';
import type { WorkspaceInput } from '../../activities/sandbox/types';
import type { StartUnitResult, UnitSummary } from '../../activities/units/unit-client';
import type { CommitResult, CommitWorkspaceInput, PrepareUnitWorkspaceInput, UnitWorkspace } from '../../activities/units/unit-workspace';
import type { ShipUnitInput, UnitState } from '../contracts';

export const SETUP_TIMEOUT = '30 seconds';
export const WORKSPACE_TIMEOUT = '10 minutes';
export const GITHUB_TIMEOUT = '1 minute';

export const setup = proxyActivities<{ loadAgentSetup(): Promise<AgentSetup> }>({
  startToCloseTimeout: SETUP_TIMEOUT,
  retry: { maximumAttempts: 5 },
});

export const workspace = proxyActivities<{
  prepareUnitWorkspace(input: PrepareUnitWorkspaceInput): Promise<UnitWorkspace>;
  commitWorkspace(input: CommitWorkspaceInput): Promise<CommitResult>;
  releaseWorkspace(input: WorkspaceInput): Promise<unknown>;
}>({
  startToCloseTimeout: WORKSPACE_TIMEOUT,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
});

/** Reads and effect-keyed writes: a retried write looks for its marker, so retrying an unknown result is safe. */
export const github = proxyActivities<GitHubActivities>({
  startToCloseTimeout: GITHUB_TIMEOUT,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/**
 * The unit's REST writes (the PR, its reviews, the report comment, the merge). Each is one
 * call that GitHub answers in well under a second, and none heartbeats, so a worker that dies
 * mid-write is noticed only when this runs out; the retry then looks for the marker. Just
 * above Octokit's own request timeout (20 s by default), as for a run's writes, so a lost
 * worker costs at most this long instead of a minute. Reads and pushes keep `GITHUB_TIMEOUT`.
 */
export const GITHUB_WRITE_TIMEOUT = '25 seconds';

export const githubWrites = proxyActivities<
  Pick<GitHubActivities, 'openOrUpdatePullRequest' | 'postReview' | 'postComment' | 'mergePullRequest'>
>({
  startToCloseTimeout: GITHUB_WRITE_TIMEOUT,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

export const units = proxyActivities<{
  startUnit(input: ShipUnitInput & { effectKey?: string }): Promise<StartUnitResult>;
  inspectUnit(input: { unitId: string }): Promise<UnitState>;
  listUnits(input: { requester?: string; repo?: string; kind?: 'unit' | 'plan' | 'run'; limit?: number }): Promise<UnitSummary[]>;
}>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});
