/**
 * Every signal and update each workflow type takes, with the shape its input is checked
 * against: the one list the workflows validate by (workflows/input-guard.ts) and the fuzz test
 * (test/operator-inputs.test.ts) drives. A new message goes here with its shape, or a test says so.
 */
import { BOARD_CHANGE_SHAPE, boardChangeUpdate, consolidateSignal, CONSOLIDATION_REQUEST_SHAPE } from './board';
import { STEER_INPUT_SHAPE, STOP_INPUT_SHAPE, steerSignal, steerUpdate, stopSignal } from './common';
import { PLAN_UNIT_UPDATE_SHAPE, unitUpdateSignal } from './plan';
import { RESEND_INPUT_SHAPE, resendUpdate } from './resend';
import type { Shape } from './shape';
import {
  releaseSpendSignal,
  reserveSpendUpdate,
  SPEND_RELEASE_SHAPE,
  SPEND_RESERVE_SHAPE,
  SPEND_SWEEP_SHAPE,
  sweepSpendUpdate,
} from './spend';
import { messageSignal, RUN_ENDED_SHAPE, runEndedSignal, sendMessageUpdate, THREAD_MESSAGE_SHAPE } from './thread';
import { checksSignal, mergeSignal, prEventSignal, UNIT_CHECKS_EVENT_SHAPE, UNIT_MERGE_SHAPE, UNIT_PR_EVENT_SHAPE } from './unit';

export interface MessageInput {
  name: string;
  kind: 'signal' | 'update';
  shape: Shape;
  /** The message may come with no input at all (`stop`, `merge`). */
  absentOk?: boolean;
}

const steer: MessageInput[] = [
  { name: steerSignal.name, kind: 'signal', shape: STEER_INPUT_SHAPE },
  { name: steerUpdate.name, kind: 'update', shape: STEER_INPUT_SHAPE },
];
const stop: MessageInput = { name: stopSignal.name, kind: 'signal', shape: STOP_INPUT_SHAPE, absentOk: true };
const resend: MessageInput = { name: resendUpdate.name, kind: 'update', shape: RESEND_INPUT_SHAPE };

/** By workflow type: what each takes. (`resendWorkflow` takes no messages.) */
export const MESSAGE_INPUTS: Record<string, MessageInput[]> = {
  threadWorkflow: [
    { name: messageSignal.name, kind: 'signal', shape: THREAD_MESSAGE_SHAPE },
    { name: sendMessageUpdate.name, kind: 'update', shape: THREAD_MESSAGE_SHAPE },
    stop,
    resend,
    { name: runEndedSignal.name, kind: 'signal', shape: RUN_ENDED_SHAPE },
  ],
  agentRunWorkflow: [...steer, stop],
  shipUnitWorkflow: [
    ...steer,
    stop,
    { name: prEventSignal.name, kind: 'signal', shape: UNIT_PR_EVENT_SHAPE },
    { name: checksSignal.name, kind: 'signal', shape: UNIT_CHECKS_EVENT_SHAPE },
    { name: mergeSignal.name, kind: 'signal', shape: UNIT_MERGE_SHAPE, absentOk: true },
    resend,
  ],
  planWorkflow: [{ name: unitUpdateSignal.name, kind: 'signal', shape: PLAN_UNIT_UPDATE_SHAPE }, stop, resend],
  resendWorkflow: [],
  boardWorkflow: [
    { name: boardChangeUpdate.name, kind: 'update', shape: BOARD_CHANGE_SHAPE },
    { name: consolidateSignal.name, kind: 'signal', shape: CONSOLIDATION_REQUEST_SHAPE },
  ],
  spendLedgerWorkflow: [
    { name: reserveSpendUpdate.name, kind: 'update', shape: SPEND_RESERVE_SHAPE },
    { name: releaseSpendSignal.name, kind: 'signal', shape: SPEND_RELEASE_SHAPE },
    { name: sweepSpendUpdate.name, kind: 'update', shape: SPEND_SWEEP_SHAPE, absentOk: true },
  ],
};
