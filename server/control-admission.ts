import { type Client, WorkflowNotFoundError, type WorkflowExecutionDescription } from '@temporalio/client';
import { admitControl, type AdmissionFacts, type ControlAction, type ControlAdmission, type Person, type Subject } from '../agents';
import { Agent, Repo, Requester, SwitchboardKind } from '../workflows/search-attributes';

/**
 * What a run, unit or plan is as the admission sees it, from its description: its kind, who
 * asked for it (the `Requester` it records at its first workflow task), its agent (a unit and a
 * plan run `ship`) and its repository.
 */
export function subjectOf(workflowId: string, description: WorkflowExecutionDescription): Subject {
  const attributes = description.typedSearchAttributes;
  const recorded = attributes.get(SwitchboardKind);
  const kind: Subject['kind'] =
    recorded === 'unit' || recorded === 'plan' || recorded === 'thread' || recorded === 'run'
      ? recorded
      : workflowId.startsWith('unit:')
        ? 'unit'
        : workflowId.startsWith('plan:')
          ? 'plan'
          : workflowId.startsWith('thread:')
            ? 'thread'
            : 'run';
  const requester = attributes.get(Requester);
  const agent = attributes.get(Agent) ?? (kind === 'unit' || kind === 'plan' ? 'ship' : undefined);
  const repo = attributes.get(Repo);
  return { kind, id: workflowId, ...(requester ? { requester } : {}), ...(agent ? { agent } : {}), ...(repo ? { repo } : {}) };
}

export type ControlDecision =
  (ControlAdmission & { subject: Subject; description: WorkflowExecutionDescription }) | { ok: false; code: 'not_found'; message: string };

/**
 * "May this person read, steer or stop this workflow?" — the one question every door that
 * reaches a running workflow asks (Slack's stop controls, the API and MCP, the session pages):
 * it describes the workflow and answers with `admitControl` (agents/admission.ts), the same
 * rule everywhere. The caller sends the signal or update only when the answer is `ok`, and
 * answers a refusal's `message` in the conversation it came from.
 */
export function createControlAdmission(options: { client: Client; facts(): Promise<AdmissionFacts> }) {
  return {
    async decide(person: Person, workflowId: string, action: ControlAction): Promise<ControlDecision> {
      let description: WorkflowExecutionDescription;
      try {
        description = await options.client.workflow.getHandle(workflowId).describe();
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return { ok: false, code: 'not_found', message: `There is no ${workflowId}.` };
        throw error;
      }
      return this.decideFor(person, workflowId, description, action);
    },

    /** The same, for a workflow the caller has already described. */
    async decideFor(person: Person, workflowId: string, description: WorkflowExecutionDescription, action: ControlAction) {
      const subject = subjectOf(workflowId, description);
      return { ...admitControl(await options.facts(), person, subject, action), subject, description };
    },
  };
}

export type ControlAdmissionDoor = ReturnType<typeof createControlAdmission>;
