/**
 * Every workflow Switchboard runs, re-exported for the bundle. One workflow per file;
 * its signals, updates and queries are defined at the top of that file.
 */
export { agentRunWorkflow } from './agent-run';
export { shipUnitWorkflow } from './ship-unit';
export { threadWorkflow } from './thread';
export { planWorkflow } from './plan';
