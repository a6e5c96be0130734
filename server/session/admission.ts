import { type Caller } from '../../infra/api-tokens';
import { mayTouch, type AccessOptions } from '../api/door-access';
import { threadWorkflowType } from '../../workflows/contracts';
import type { WorkflowFacts } from './history/reader';

/** What a session page asks the admission: may this person do this to this workflow? */
export interface SessionActionRequest {
  person: Caller;
  workflow: WorkflowFacts;
  /** `view`: open the page with a token and no link; `steer` and `stop`: the page's box and button. */
  action: 'view' | 'steer' | 'stop';
}

export type SessionDecision = { ok: true } | { ok: false; code: string; message: string };

/**
 * THE SEAM for the admission (issue 23): the one function the session pages call before they
 * show a person the steer box or the stop button, before they act, and before a token opens a
 * page without a link. Replace `sessionAdmissionFromRules` by the admission module's decision
 * ("may this person steer/stop this workflow") where `createSessionRouter` is built
 * (server/session/from-config.ts); nothing else on the pages decides.
 */
export type SessionAdmission = (request: SessionActionRequest) => SessionDecision;

/**
 * Today's rules, the HTTP API's (server/api/door-access.ts `mayTouch`): a run or unit is the
 * requester's, or anyone's whom the access rules let use its agent (a self-serve token reaches its
 * own only); an API thread is its owner's. The steer and stop themselves go through the API's
 * door (`steerWorkflow`, `stopWorkflow`), which checks the same rule again.
 */
export function sessionAdmissionFromRules(options: AccessOptions): SessionAdmission {
  return ({ person, workflow }) => {
    if (workflow.type === threadWorkflowType.name) {
      return workflow.owner === person.userId
        ? { ok: true }
        : { ok: false, code: 'not_requester', message: 'This thread is not yours: open it with its link, or steer its run.' };
    }
    const decision = mayTouch(options, person, workflow, workflow.kind === 'unit' ? 'unit' : 'run');
    return decision.ok ? decision : { ok: false, code: decision.refusal, message: decision.message };
  };
}
