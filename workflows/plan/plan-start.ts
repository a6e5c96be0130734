import type { StatusActivities, UnitClientActivities } from '../activity-proxies';
import type { PlanInput, PlanUnitSpec, PlanUnitState, ShipUnitInput } from '../contracts';
import { unitThreadText } from './plan-card';

/**
 * The `patched()` id of a plan whose units have conversations of their own (in Slack a thread
 * each, on GitHub their pull requests), whose card in its conversation is edited in place, and
 * whose unit starts wait for money the daily spend caps cannot fund yet. Plans recorded before it
 * started every unit in the plan's conversation and posted a progress reply per change.
 */
export const PLAN_UNIT_THREADS = 'plan-unit-threads';

/** The note of a unit whose first round the spend caps cannot fund yet (the plan tries again). */
export const NOT_FUNDED = 'not funded yet';

/**
 * Starts one unit of a plan on its own id. With conversations of their own (`threads`): in Slack
 * the unit's thread is opened first (a top-level message of the plan's channel, once), and the
 * unit reports and is steered there; on GitHub it converses on its pull request once it has one;
 * a start the spend caps cannot fund leaves the unit waiting with the refusal as its note; any
 * other refusal settles it `failed`. Without, every unit reports in the plan's conversation.
 */
export class PlanUnitStarter {
  constructor(
    private readonly input: PlanInput,
    private readonly mergeAuthority: boolean,
    private readonly activities: { status: Pick<StatusActivities, 'openUnitThread'>; units: Pick<UnitClientActivities, 'startUnit'> },
    private readonly threads: boolean,
  ) {}

  async start(unit: PlanUnitState, spec: PlanUnitSpec): Promise<void> {
    const { input } = this;
    unit.status = 'running';
    const started = await this.activities.units.startUnit({
      unitId: unit.unitId,
      repo: input.repo,
      request: spec.request,
      replyTarget: this.threads ? await this.conversation(unit, spec) : input.replyTarget,
      requester: input.requester,
      threadId: `${input.planId}/${unit.key}`,
      plan: { workflowId: input.planId, key: unit.key, mergeAuthority: this.mergeAuthority },
      effectKey: `${input.planId}/start/${unit.key}`,
      ...(input.model ? { model: input.model } : {}),
      ...(this.threads ? this.extras() : {}),
    });
    if (!this.threads) return;
    if (started.status !== 'refused') {
      delete unit.note;
      return;
    }
    if (started.code === 'spend_cap') {
      unit.status = 'waiting';
      unit.note = `${NOT_FUNDED} (${(started.reason ?? '').replace(/^Not started: /, '')})`;
      return;
    }
    unit.status = 'settled';
    unit.outcome = 'failed';
    unit.note = started.reason ?? 'not started';
  }

  /** Where the unit reports: its own Slack thread (opened once), else the plan's conversation. */
  private async conversation(unit: PlanUnitState, spec: PlanUnitSpec): Promise<ShipUnitInput['replyTarget']> {
    const { input } = this;
    if (input.replyTarget.kind !== 'slack') return input.replyTarget;
    if (!unit.conversation) {
      const opened = await this.activities.status.openUnitThread({
        effectKey: `${input.planId}/thread/${unit.key}`,
        replyTarget: input.replyTarget,
        planId: input.planId,
        unitId: unit.unitId,
        text: unitThreadText(input.planId, unit, spec.request),
      });
      if (opened.replyTarget) unit.conversation = opened.replyTarget;
    }
    return unit.conversation ?? input.replyTarget;
  }

  /** A Slack plan's channel (its caps count the units), a GitHub plan's units conversing on their pull requests. */
  private extras(): Partial<ShipUnitInput> {
    const target = this.input.replyTarget;
    if (target.kind === 'slack') return { channelId: target.channel };
    if (target.kind === 'github') return { conversation: 'pull-request' };
    return {};
  }
}
