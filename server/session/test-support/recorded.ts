import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { projectRoot } from '../../../infra/paths';
import { decodeEvents } from '../../../infra/history/decode';
import type { Execution } from '../../../infra/history/events';

/** A recorded history (test/histories/<name>.json) as one execution of session events, decoded as the server would. */
export async function recordedExecution(name: string): Promise<{ workflowId: string; execution: Execution }> {
  const { workflowId, ...json } = JSON.parse(readFileSync(join(projectRoot(), 'test', 'histories', `${name}.json`), 'utf8')) as {
    workflowId: string;
  };
  const history = historyFromJSON(json);
  const events = await decodeEvents(loadDataConverter(), history.events ?? []);
  const started = events.find((event) => event.kind === 'started');
  return { workflowId, execution: { runId: started?.kind === 'started' ? started.runId : '', events } };
}
