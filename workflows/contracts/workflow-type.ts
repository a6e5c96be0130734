import type { Workflow } from '@temporalio/common';

/**
 * A workflow type as a client names it, without importing workflow code: a function whose
 * `name` is the registered type and whose signature is the workflow's, so
 * `client.workflow.start(shipUnitWorkflowType, { args })` and `startChild(...)` check their
 * arguments at compile time. It only names the type; calling it is a mistake and throws.
 */
export function workflowType<W extends Workflow>(name: string): W {
  const named = {
    [name]: () => {
      throw new Error(`${name} is a workflow type: start it through a Temporal client`);
    },
  };
  return named[name] as unknown as W;
}
