/**
 * A run's profile (agents/profile.ts resolves it): everything a run needs to know about how it
 * runs, passed from the thread to the run, the card, the prompt and the record. Plain data that
 * crosses the workflow/activity boundary, so it lives here with the lists its fields take.
 */
import type { McpAdmission } from './mcp';

export const MACHINES = ['none', 'repo-resident', 'repo-cold'] as const;
export const IDENTITIES = ['none', 'read', 'write'] as const;
export const EFFORTS = ['low', 'medium', 'high'] as const;
export const CACHE_TTLS = ['5m', '1h'] as const;
/** What a role's answer to its parent is: its final text, or a command runner's report (agents/builtins/roles.ts `task`). */
export const RESULT_SHAPES = ['answer', 'command'] as const;

export type Machine = (typeof MACHINES)[number];
export type Identity = (typeof IDENTITIES)[number];
export type Effort = (typeof EFFORTS)[number];
export type CacheTtl = (typeof CACHE_TTLS)[number];
export type ResultShape = (typeof RESULT_SHAPES)[number];

/** A directive-shaped token that was kept as text, and why. */
export interface IgnoredDirective {
  token: string;
  reason: string;
}

/** A tool of the toolset this deployment cannot run (tools/availability.ts), and why. */
export interface ToolOff {
  tool: string;
  why: string;
}

/** The layer that set the budget's final bound (`parent`: a child run's parent had less left). */
export type BoundedBy = 'preset' | 'channel' | 'person' | 'directive' | 'parent';
/** The layer whose choice a free-choice field (model, effort, repository) took (`entry`: `agents.entries.<id>`). */
export type ChosenBy = 'default' | 'preset' | 'entry' | 'channel' | 'person' | 'directive';

export interface Chosen<T> {
  value: T;
  chosenBy: ChosenBy;
}

export interface BudgetResolution {
  minutes: number;
  boundedBy: BoundedBy;
  /** The agent's own budget. */
  presetMinutes: number;
  /** The channel's or person's bound when it was tighter than the preset. */
  limits: { channel?: number; person?: number };
  /** What `budget:<n>` asked for, when the message had one. */
  requestedMinutes?: number;
  /** True when a budget directive was given and the run's budget did not move. */
  directiveNarrowedNothing: boolean;
}

/**
 * Everything a run needs to know about how it runs. Plain data: the thread workflow
 * resolves it once and passes it to the run, the card, the prompt and the record.
 */
export interface Profile {
  agent: string;
  displayName: string;
  kind: 'agent' | 'role';
  toolset: string;
  tools: string[];
  /** Tools of the toolset this deployment cannot run (no backend configured), with why; absent in older records. */
  toolsOff?: ToolOff[];
  machine: Machine;
  identity: Identity;
  model: Chosen<string>;
  effort: Chosen<Effort>;
  budget: BudgetResolution;
  turnGuard: number;
  tokenCap: number;
  cacheTtl: CacheTtl;
  repo?: Chosen<string>;
  pipeline?: 'ship';
  /** Directive-shaped words the message kept as text, with why. */
  ignoredDirectives: IgnoredDirective[];
  /**
   * The MCP servers this run may use (their tools are discovered when it starts), and those
   * attached to the agent that it may not, with why; absent when none is attached.
   */
  mcp?: McpAdmission;
  /** A role's answer to its parent, when it is not its final text (`command`: the task role's report). */
  result?: Exclude<ResultShape, 'answer'>;
  /**
   * Roles the `task` tool does not offer this run, with why: a complementary role (rubber-duck)
   * when no model of another family than the run's is configured. Absent: every role is offered.
   */
  rolesOff?: Array<{ role: string; why: string }>;
}
