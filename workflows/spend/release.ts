import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { releaseSpendSignal, spendLedgerId, type SpendRelease } from '../contracts';

/**
 * Tells the deployment's spend ledger that a holder settled (a `release` signal from the workflow
 * itself, so no activity can be lost between them). A ledger that is not running holds nothing.
 */
export async function releaseSpend(release: SpendRelease): Promise<void> {
  await getExternalWorkflowHandle(spendLedgerId(workflowInfo().taskQueue))
    .signal(releaseSpendSignal, release)
    .catch(() => undefined);
}
