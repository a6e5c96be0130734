import { ApplicationFailure } from '@temporalio/common';
import { agentRunWorkflow, planWorkflow, resendWorkflow, shipUnitWorkflow, spendLedgerWorkflow, threadWorkflow } from '../index';
import {
  agentRunWorkflowType,
  checksSignal,
  failure,
  FAILURE_CODES,
  mergeSignal,
  messageSignal,
  planStateQuery,
  planWorkflowType,
  prEventSignal,
  releaseSpendSignal,
  reserveSpendUpdate,
  resendUpdate,
  resendWorkflowType,
  spendLedgerQuery,
  spendLedgerWorkflowType,
  sweepSpendUpdate,
  runStatusQuery,
  shipUnitWorkflowType,
  steerSignal,
  steerUpdate,
  stopSignal,
  threadStateQuery,
  threadWorkflowType,
  uncertainWritesQuery,
  unitStateQuery,
  unitUpdateSignal,
  type AgentRunWorkflow,
  type PlanWorkflow,
  type ResendWorkflow,
  type ShipUnitWorkflow,
  type SpendLedgerWorkflow,
  type ThreadWorkflow,
} from '.';

// The implementations must have the contracts' signatures (checked by the compiler).
const implementations: [AgentRunWorkflow, ShipUnitWorkflow, ThreadWorkflow, PlanWorkflow, ResendWorkflow, SpendLedgerWorkflow] = [
  agentRunWorkflow,
  shipUnitWorkflow,
  threadWorkflow,
  planWorkflow,
  resendWorkflow,
  spendLedgerWorkflow,
];

describe('workflow contracts', () => {
  test('each workflow type names the function the worker registers', () => {
    const contracts = [
      agentRunWorkflowType,
      shipUnitWorkflowType,
      threadWorkflowType,
      planWorkflowType,
      resendWorkflowType,
      spendLedgerWorkflowType,
    ];
    expect(contracts.map((contract) => contract.name)).toEqual(implementations.map((implementation) => implementation.name));
    expect(contracts.map((contract) => contract.name)).toEqual([
      'agentRunWorkflow',
      'shipUnitWorkflow',
      'threadWorkflow',
      'planWorkflow',
      'resendWorkflow',
      'spendLedgerWorkflow',
    ]);
  });

  test('a workflow type only names the type: calling it says so', () => {
    expect(() => shipUnitWorkflowType({} as never)).toThrow('shipUnitWorkflow is a workflow type');
  });

  // Operators type these names into the `temporal` CLI (docs/runs.md, docs/ship.md), and
  // recorded histories carry them: a rename is a breaking change, never a refactor.
  test('wire names stay what operators and recorded histories use', () => {
    expect({
      steer: [steerSignal.type, steerSignal.name, steerUpdate.type, steerUpdate.name],
      stop: [stopSignal.type, stopSignal.name],
      message: messageSignal.name,
      prEvent: prEventSignal.name,
      checks: checksSignal.name,
      merge: mergeSignal.name,
      unitUpdate: unitUpdateSignal.name,
      resend: [resendUpdate.type, resendUpdate.name, uncertainWritesQuery.name],
      queries: [runStatusQuery.name, unitStateQuery.name, threadStateQuery.name, planStateQuery.name, spendLedgerQuery.name],
      ledger: [reserveSpendUpdate.type, reserveSpendUpdate.name, releaseSpendSignal.type, releaseSpendSignal.name, sweepSpendUpdate.name],
    }).toEqual({
      steer: ['signal', 'steer', 'update', 'steer'],
      stop: ['signal', 'stop'],
      message: 'message',
      prEvent: 'prEvent',
      checks: 'checks',
      merge: 'merge',
      unitUpdate: 'unitUpdate',
      resend: ['update', 'resend', 'uncertainWrites'],
      queries: ['status', 'state', 'state', 'state', 'state'],
      ledger: ['update', 'reserve', 'signal', 'release', 'sweep'],
    });
  });

  test('failure() raises an ApplicationFailure typed with one of the codes, non-retryable unless asked', () => {
    const refused = failure('steer_rejected', 'steer needs non-empty text');
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect(refused).toMatchObject({ type: 'steer_rejected', message: 'steer needs non-empty text', nonRetryable: true });
    const later = failure('github_rate_limited', 'wait', { retryable: true, nextRetryDelay: 2_000 });
    expect(later).toMatchObject({ type: 'github_rate_limited', nonRetryable: false, nextRetryDelay: 2_000 });
    expect(new Set(FAILURE_CODES).size).toBe(FAILURE_CODES.length);
  });
});
