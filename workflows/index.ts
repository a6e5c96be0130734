/**
 * Every workflow Switchboard runs, re-exported for the bundle. One workflow per file; their
 * names, inputs, signals, queries and updates are defined in `contracts/`.
 */
export { agentRunWorkflow } from './agent-run';
export { shipUnitWorkflow } from './ship-unit';
export { threadWorkflow } from './thread';
export { planWorkflow } from './plan';
export { resendWorkflow } from './resend';
export { boardWorkflow } from './board';
export { spendLedgerWorkflow } from './spend-ledger';
