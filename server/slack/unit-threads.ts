import { type Client } from '@temporalio/client';
import { UNIT_THREAD_EVENT_TYPE, type SlackWebClient } from '../../activities/slack';
import { type Logger } from '../../infra/logger';
import { steerUpdate, stopSignal } from '../../workflows/contracts';
import { type ControlAdmissionDoor } from '../control-admission';
import { stopCommand } from '../github-event-routing';

/** Thread roots looked at, by `<channel>:<ts>`: the unit whose thread it is, or none (a root's metadata never changes). */
const REMEMBERED = 2_000;

/**
 * Which Slack threads are a plan unit's own (activities/slack `openUnitThread`): the thread's root
 * is our top-level message whose metadata names the unit. Read once per thread with
 * `conversations.replies` and remembered.
 */
export class UnitThreads {
  private readonly known = new Map<string, string | null>();

  constructor(private readonly reader: SlackWebClient) {}

  async unitOf(channel: string, threadTs: string, botUserId: string | undefined): Promise<string | undefined> {
    const key = `${channel}:${threadTs}`;
    const cached = this.known.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const found = await this.reader.conversations.replies({ channel, ts: threadTs, limit: 1, inclusive: true, include_all_metadata: true });
    const root = found.messages?.find((message) => message.ts === threadTs);
    // Only a root we posted counts: nobody else can name a unit for the door to steer.
    const ours = root !== undefined && (root.bot_id !== undefined || (botUserId !== undefined && root.user === botUserId));
    const unitId =
      ours && root.metadata?.event_type === UNIT_THREAD_EVENT_TYPE
        ? (root.metadata.event_payload as Record<string, unknown> | undefined)?.unit_id
        : undefined;
    const unit = typeof unitId === 'string' && unitId.startsWith('unit:') ? unitId : undefined;
    this.known.set(key, unit ?? null);
    if (this.known.size > REMEMBERED) this.known.delete(this.known.keys().next().value!);
    return unit;
  }
}

export interface UnitThreadReply {
  unitId: string;
  userId: string;
  channel: string;
  /** The reply's own ts (it gets a reaction when the unit took it). */
  ts: string;
  text: string;
}

/**
 * A reply in a plan unit's own thread: `stop` stops the unit, anything else steers it (its next
 * coding round), each only when the one admission says this person may (its requester, or an
 * operator to stop it). A refusal is said to the person alone; a reply the unit took gets 👀.
 */
export async function replyToUnit(
  deps: { client: Client; control: ControlAdmissionDoor; reader: SlackWebClient; logger: Logger },
  reply: UnitThreadReply,
): Promise<void> {
  const person = { surface: 'slack' as const, userId: reply.userId, channelId: reply.channel };
  const reason = stopCommand(reply.text);
  const action = reason !== undefined ? 'stop' : 'steer';
  const decision = await deps.control.decide(person, reply.unitId, action);
  const tell = (text: string) =>
    deps.reader.chat.postEphemeral({ channel: reply.channel, user: reply.userId, text }).catch(() => undefined);
  if (!decision.ok) return void (await tell(decision.message));
  if (decision.description.status.name !== 'RUNNING') return void (await tell(`Unit ${reply.unitId} has already settled.`));
  const handle = deps.client.workflow.getHandle(reply.unitId);
  if (reason !== undefined) await handle.signal(stopSignal, { reason: reason || 'stopped from its Slack thread', by: reply.userId });
  else {
    const refused = await handle
      .executeUpdate(steerUpdate, { args: [{ text: reply.text, by: reply.userId }] })
      .then(() => undefined)
      .catch((error: unknown) => (error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)));
    if (refused) return void (await tell(`Unit ${reply.unitId} did not take that: ${refused}`));
  }
  await deps.reader.reactions
    .add({ channel: reply.channel, timestamp: reply.ts, name: reason !== undefined ? 'octagonal_sign' : 'eyes' })
    .catch(() => undefined);
  deps.logger.info(
    { unitId: reply.unitId, by: reply.userId, action },
    `a reply in its Slack thread ${action === 'stop' ? 'stopped' : 'steered'} the unit`,
  );
}
