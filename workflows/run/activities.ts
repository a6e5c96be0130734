import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { ModelTurnInput, ModelTurnResult } from '../../activities/models/types';
import type { BashInput, BashResult, FileResult, JobStatus, JobStatusInput, WorkspaceRef } from '../../activities/sandbox/types';
import type { EffectResult, ReplyInput, StatusCardInput } from '../../activities/status/types';

/** The activity contracts a run calls, by name (implementations live in activities/). */
export interface ModelActivities {
  modelTurn(input: ModelTurnInput): Promise<ModelTurnResult>;
}

export interface SandboxActivities {
  bash(input: BashInput): Promise<BashResult>;
  readFile(input: { workspace: WorkspaceRef; path: string; offset?: number; limit?: number }): Promise<FileResult>;
  writeFile(input: { workspace: WorkspaceRef; path: string; content: string }): Promise<FileResult>;
  jobStatus(input: JobStatusInput): Promise<JobStatus>;
  closeWorkspace(input: { workspace: WorkspaceRef }): Promise<unknown>;
}

export interface StatusActivities {
  statusCard(input: StatusCardInput): Promise<EffectResult>;
  deliverReply(input: ReplyInput): Promise<EffectResult>;
}

/** Model calls: long, heartbeating, retried with backoff on 429/5xx (non-retryable failures say why). */
export const MODEL_TURN_TIMEOUT = '10 minutes';
export const MODEL_HEARTBEAT_TIMEOUT = '30 seconds';
/**
 * A shell command is never re-run by a retry: a worker lost mid-command leaves its result
 * unknown, and the model is told so rather than having the command repeat behind its back.
 */
export const BASH_ACTIVITY_TIMEOUT = '21 minutes';
export const BASH_HEARTBEAT_TIMEOUT = '20 seconds';
export const FILE_ACTIVITY_TIMEOUT = '1 minute';
export const CARD_ACTIVITY_TIMEOUT = '30 seconds';

export const models = proxyActivities<ModelActivities>({
  startToCloseTimeout: MODEL_TURN_TIMEOUT,
  heartbeatTimeout: MODEL_HEARTBEAT_TIMEOUT,
  cancellationType: ActivityCancellationType.TRY_CANCEL,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

export const shell = proxyActivities<Pick<SandboxActivities, 'bash'>>({
  startToCloseTimeout: BASH_ACTIVITY_TIMEOUT,
  heartbeatTimeout: BASH_HEARTBEAT_TIMEOUT,
  // A stop waits until the process group is really gone before the run settles.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
});

export const files = proxyActivities<Omit<SandboxActivities, 'bash' | 'closeWorkspace'>>({
  startToCloseTimeout: FILE_ACTIVITY_TIMEOUT,
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

/** Ending a workspace's processes when its run ends: quick, and repeatable. */
export const workspaces = proxyActivities<Pick<SandboxActivities, 'closeWorkspace'>>({
  startToCloseTimeout: FILE_ACTIVITY_TIMEOUT,
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

export const status = proxyActivities<StatusActivities>({
  startToCloseTimeout: CARD_ACTIVITY_TIMEOUT,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
