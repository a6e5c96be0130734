import { Worker } from '@temporalio/worker';
import { workflowBundlePath } from '../infra/paths';
import {
  agentRunWorkflowType,
  boardWorkflowType,
  planWorkflowType,
  resendWorkflowType,
  shipUnitWorkflowType,
  spendLedgerWorkflowType,
  threadWorkflowType,
} from '../workflows/contracts';
import { recordedHistories } from './helpers/history';
import { quietRuntime } from './helpers/temporal';

jest.setTimeout(120_000);

/**
 * Every history in test/histories/ (recorded from real workflows by `npm run
 * record-histories`) replays against the built workflow bundle. A change that would break a
 * workflow already running fails here, naming the file, the workflow and the event; such a
 * change needs `patched()` or a new workflow type (docs/versioning.md).
 */
describe('recorded histories', () => {
  const histories = recordedHistories();

  test('cover every workflow type', () => {
    const types = new Set(histories.map((history) => history.workflowType));
    expect([...types].sort()).toEqual(
      [
        agentRunWorkflowType,
        boardWorkflowType,
        planWorkflowType,
        resendWorkflowType,
        shipUnitWorkflowType,
        spendLedgerWorkflowType,
        threadWorkflowType,
      ]
        .map((type) => type.name)
        .sort(),
    );
  });

  test('replay against the built bundle', async () => {
    quietRuntime();
    const results = Worker.runReplayHistories(
      { workflowBundle: { codePath: workflowBundlePath() }, replayName: 'switchboard-replay' },
      histories.map(({ workflowId, history }) => ({ workflowId, history })),
    );
    const failures: string[] = [];
    let index = 0;
    // Histories are replayed one at a time, in order.
    for await (const result of results) {
      const { file, workflowType } = histories[index++];
      if (result.error) failures.push(`${file} (${workflowType} ${result.workflowId}): ${result.error.message}`);
    }
    expect(index).toBe(histories.length);
    expect(failures).toEqual([]);
  });
});
