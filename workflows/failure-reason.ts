import { rootCause } from '@temporalio/common';

/**
 * Why something failed, in words for a record and a report: the root cause (a refused script,
 * a missing repository, a missing key), not the wrapper's "Activity task failed".
 */
export function failureReason(error: unknown): string {
  return rootCause(error) ?? String(error);
}

/** Continue-as-new is thrown through the workflow as an error: it must pass every catch. */
export function isContinueAsNew(error: unknown): boolean {
  return (error as { name?: string })?.name === 'ContinueAsNew';
}
