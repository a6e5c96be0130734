/**
 * Every refusal the admission answers with, in one place: a stable code, what kind of refusal it
 * is (which decides an HTTP status), and one line saying what it means (docs/agents.md lists
 * them). Each door answers a refusal in the conversation it came from, with the admission's
 * own sentence; logs, the API's `refusal` member, MCP tool errors and thread outcomes carry
 * the code. Add a code here first.
 *
 * Kinds: `access` — the person may not do this (403); `request` — the request cannot be done as
 * asked (422); `unavailable` — the deployment or GitHub cannot say yes right now (503).
 */
export const REFUSALS = {
  agent_unknown: { kind: 'request', means: 'No agent has that name.' },
  agent_feature_off: { kind: 'access', means: "The agent's feature flag is off." },
  agent_surface_excluded: { kind: 'access', means: 'The agent is not offered on this surface (Slack, GitHub, HTTP, MCP, CLI).' },
  agent_restricted: { kind: 'access', means: 'The agent is limited to the people restrict.agents names, and this person is not one.' },
  channel_grant: { kind: 'access', means: "The channel's allowedAgents leaves the agent out." },
  person_grant: { kind: 'access', means: "The person's grant (grants.people.<id>.agents) leaves the agent out." },
  token_grant: { kind: 'access', means: "The API token's agents leave the agent out." },
  self_serve_shell: {
    kind: 'access',
    means:
      "A self-serve token never reaches an agent that holds a shell, nor a stdio MCP server (it runs in a sandbox: the run goes on without that server's tools).",
  },
  self_serve_excluded: { kind: 'access', means: 'The agent is not open to self-serve tokens.' },
  model_unknown: {
    kind: 'request',
    means: 'The chosen model names no provider Switchboard has (anthropic, openai, scripted); refused at the door, before anything starts.',
  },
  model_not_allowed: {
    kind: 'access',
    means: 'The chosen model is not in models.allowed (or is a scripted path outside the scripted directories).',
  },
  actor_permission: {
    kind: 'access',
    means: "The GitHub actor's role on the repository is below what admission.github requires for the agent.",
  },
  actor_unverified: { kind: 'unavailable', means: "GitHub did not answer what the actor's role on the repository is (fail closed)." },
  not_requester: {
    kind: 'access',
    means:
      'The run, unit, plan or thread belongs to someone else: only its requester (or an owner the surface names) steers it, only its requester or an operator (or on GitHub such an owner) stops it, only its requester or an operator reads it.',
  },
  mcp_server_restricted: {
    kind: 'access',
    means:
      "An MCP server attached to the agent is limited to the people mcp.servers.<name>.people names, and this person is not one: the run goes on without that server's tools.",
  },
  unit_tools_private: { kind: 'access', means: "The orchestrator's unit tools work only in the person's own private DM (or the CLI)." },
  repo_agent_not_allowed: {
    kind: 'access',
    means: "The repository's agents.allowed (its .switchboard.yml, or the deployment's repositories section) leaves the agent out.",
  },
  steer_too_long: {
    kind: 'request',
    means: 'A reply for the running run is longer than a steer may be (20,000 characters): it was not sent to the run.',
  },
  request_missing: { kind: 'request', means: 'The message named an agent but asked nothing.' },
  repo_missing: { kind: 'request', means: 'A code change needs a repository and none was named.' },
  needs_pull_request: { kind: 'request', means: 'The agent works on a pull request, and the conversation is a plain issue.' },
  repo_not_visible: {
    kind: 'request',
    means: "The repository is not visible to the GitHub identity the run would use (the vet's 404/403).",
  },
  repo_unverified: { kind: 'unavailable', means: 'GitHub did not confirm the repository (an error, a timeout, no credential).' },
  service_unavailable: {
    kind: 'unavailable',
    means:
      'What the request needs inside Switchboard (the spend ledger, a board, a plan) did not answer in time; nothing was started or changed.',
  },
  sandbox_unavailable: { kind: 'unavailable', means: 'The agent needs a sandboxed shell and this deployment cannot isolate commands.' },
  settings_missing: { kind: 'request', means: 'A ship unit needs settings this deployment lacks (GitHub identities, a model key).' },
  board_off: { kind: 'request', means: 'The team board is off for this repository or channel (its board.enabled).' },
  board_keeper: {
    kind: 'access',
    means:
      'Keeping or retiring a board entry takes a keeper: board.keepers (a GitHub role on the repository, or named people) or an operator.',
  },
  board_agent_only: {
    kind: 'request',
    means: 'The agent (rem-agent) is started by a board (/subconscious run, or after work ends), never by a message or a task call.',
  },
  command_unknown: {
    kind: 'request',
    means: 'The message starts with a slash command that does not exist; the answer lists the known ones.',
  },
  spend_cap: {
    kind: 'access',
    means:
      'A daily spend cap (spend.people, channels, repos or agents) cannot fund the start: spent, or reserved by work in progress, for today; the answer says how much and when it resets.',
  },
  plan_invalid: { kind: 'request', means: 'A plan asked for in chat is not sound: its YAML, a key, a dependency or a cycle (each named).' },
  plan_running: { kind: 'request', means: 'A plan with that name on that repository is still running; it is not started twice.' },
} as const satisfies Record<string, { kind: 'access' | 'request' | 'unavailable'; means: string }>;

export type RefusalCode = keyof typeof REFUSALS;
export type RefusalKind = (typeof REFUSALS)[RefusalCode]['kind'];

export const REFUSAL_CODES = Object.keys(REFUSALS) as RefusalCode[];

/** Whether `code` is one of the admission's refusal codes. */
export function isRefusalCode(code: unknown): code is RefusalCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(REFUSALS, code);
}

/** What kind of refusal a code is; an unknown code counts as the request's. */
export function refusalKind(code: string): RefusalKind {
  return isRefusalCode(code) ? REFUSALS[code].kind : 'request';
}
