import type { ToolOff } from '../workflows/contracts/profile';

/**
 * Which tools this deployment can actually execute. A toolset names what an agent may do;
 * a tool whose backend is not configured is taken out of the run's list (the model never
 * sees it) and the About block says what is off and why. Plain data: the worker's config
 * becomes `ToolBackends` in `loadAgentSetup`, and workflow code filters with it.
 */
export interface ToolBackends {
  /** The web_search provider, or why there is none (in config words). */
  webSearch: { on: true; provider: string } | { on: false; why: string };
  /** web_fetch (`web.fetch.enabled`). */
  webFetch: boolean;
  /** At least one configured skills folder (`skills.dirs`); repository skills need a checkout. */
  skillFolders: boolean;
  /** A GitHub credential (App or token) is configured. */
  github: boolean;
  /** The Slack Web API is configured (SLACK_BOT_TOKEN). */
  slack: boolean;
}

/** Where the run sits: its machine (a workspace or none) and the conversation it answers in. */
export interface ToolContext {
  machine: 'none' | 'repo-resident' | 'repo-cold';
  conversation: 'slack' | 'github' | 'api' | 'cli';
}

/** Everything on: what a test or a caller without config assumes. */
export const ALL_BACKENDS: ToolBackends = {
  webSearch: { on: true, provider: 'configured' },
  webFetch: true,
  skillFolders: true,
  github: true,
  slack: true,
};

/** Why `tool` cannot work in this run, or undefined when it can. */
export function toolOffReason(tool: string, backends: ToolBackends, context: ToolContext): string | undefined {
  switch (tool) {
    case 'web_search':
      return backends.webSearch.on ? undefined : backends.webSearch.why;
    case 'web_fetch':
      return backends.webFetch ? undefined : 'web fetch is turned off (web.fetch.enabled is false)';
    case 'list_skills':
    case 'use_skill':
      return backends.skillFolders || context.machine !== 'none'
        ? undefined
        : 'no skill folders are configured (skills.dirs) and this run has no repository checkout';
    case 'attach_file':
      return attachOffReason(backends, context);
    default:
      if (tool.startsWith('github_') && !backends.github) return 'no GitHub credential is configured (GitHub App or GITHUB_READ_TOKEN)';
      return undefined;
  }
}

function attachOffReason(backends: ToolBackends, context: ToolContext): string | undefined {
  if (context.machine === 'none') return 'this run has no workspace to attach a file from';
  if (context.conversation === 'slack')
    return backends.slack ? undefined : 'Slack is not configured (SLACK_BOT_TOKEN), so a file cannot be posted';
  if (context.conversation === 'github')
    return backends.github ? undefined : 'no GitHub credential is configured, so a file cannot be posted';
  return `this conversation (${context.conversation}) has no thread to post a file to; name the file's path in the answer instead`;
}

/** Splits a tool list into what this run holds and what is off, with why. */
export function availableTools(
  tools: readonly string[],
  backends: ToolBackends,
  context: ToolContext,
): { tools: string[]; off: ToolOff[] } {
  const kept: string[] = [];
  const off: ToolOff[] = [];
  for (const tool of tools) {
    const why = toolOffReason(tool, backends, context);
    if (why) off.push({ tool, why });
    else kept.push(tool);
  }
  return { tools: kept, off };
}
