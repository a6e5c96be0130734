import { admitControl, type AdmissionFacts, type ControlAction, type Subject } from '../../agents';
import { type Caller } from '../../infra/api-tokens';
import { accessRequester } from '../api/door-access';
import { threadWorkflowType } from '../../workflows/contracts';
import type { WorkflowFacts } from '../../infra/history/reader';

/** What a session page asks the admission: may this person do this to this workflow? */
export interface SessionActionRequest {
  person: Caller;
  workflow: WorkflowFacts;
  /** `view`: open the page with a token and no link; `steer` and `stop`: the page's box and button. */
  action: 'view' | 'steer' | 'stop';
}

export type SessionDecision = { ok: true } | { ok: false; code: string; message: string };

/**
 * The one function the session pages call before they show a person the steer box or the stop
 * button, before they act, and before a token opens a page without a link: the admission's
 * `admitControl` (agents/admission.ts), the same rule as every other door. The steer and stop
 * themselves then go through the API's door (`steerWorkflow`, `stopWorkflow`), which asks again.
 */
export type SessionAdmission = (request: SessionActionRequest) => Promise<SessionDecision>;

const ACTIONS: Record<SessionActionRequest['action'], ControlAction> = { view: 'read', steer: 'steer', stop: 'stop' };

/** What a workflow is, as the admission sees it, from what the page's watcher knows. */
function subjectOf(workflow: WorkflowFacts): Subject {
  const kind: Subject['kind'] =
    workflow.type === threadWorkflowType.name ? 'thread' : workflow.kind === 'unit' || workflow.kind === 'plan' ? workflow.kind : 'run';
  const requester = kind === 'thread' ? (workflow.owner ?? workflow.requester) : workflow.requester;
  const agent = workflow.agent ?? (kind === 'unit' || kind === 'plan' ? 'ship' : undefined);
  return { kind, id: workflow.workflowId, ...(requester ? { requester } : {}), ...(agent ? { agent } : {}) };
}

export function sessionAdmissionFrom(facts: () => Promise<AdmissionFacts>): SessionAdmission {
  return async ({ person, workflow, action }) => {
    const decision = admitControl(await facts(), accessRequester(person), subjectOf(workflow), ACTIONS[action]);
    return decision.ok ? { ok: true } : { ok: false, code: decision.code, message: decision.message };
  };
}
