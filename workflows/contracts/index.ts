/**
 * The contracts of Switchboard's workflows, in one place: each workflow's type name, input
 * and result, every signal, query and update with its payload, and the failure codes. Clients
 * (server/, cli/, activities/, tests) and the workflows themselves import these, never a
 * message or workflow name as a string (lint enforces it). Wire names and JSON shapes are
 * what operators type into the `temporal` CLI: changing one breaks them and recorded
 * histories (docs/versioning.md).
 *
 * This folder is the floor: it imports nothing from the rest of the project. The activities'
 * own contracts that the workflows share (model.ts, github.ts, status.ts, mcp.ts, profile.ts,
 * refusals.ts, undecodable-payload.ts) are imported by their paths, not from here: GitHub's and
 * the status card's `EffectResult`, and GitHub's and the admission's `RefusalCode`, share names.
 */
export * from './board';
export * from './common';
export * from './failures';
export * from './findings';
export * from './plan';
export * from './pushes';
export * from './resend';
export * from './run';
export * from './run-status';
export * from './spend';
export * from './thread';
export * from './unit';
export { workflowType } from './workflow-type';
export * from './inputs';
export { inputProblem, isOptional, problemWith, type Fields, type Optional, type Shape } from './shape';
