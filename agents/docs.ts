import { type Catalog, builtinCatalog } from './catalog';
import { type AgentDefinition, toolsetName, turnGuardFor } from './definition';
import { MAX_DIRECTIVE_BUDGET_MINUTES, MIN_DIRECTIVE_BUDGET_MINUTES } from './directives';
import { TOOLS } from '../tools/registry';
import { TOOLSET_NAMES, TOOLSET_PURPOSES, TOOLSETS } from '../tools/toolsets';
import { DEFAULT_ADMISSION, githubRequirement } from './github-roles';
import { REFUSAL_CODES, REFUSALS } from '../workflows/contracts/refusals';
import { SLASH_COMMANDS } from './commands';

/** Seed 001's seven packaged built-ins: what each is here, and every way it is reached. */
export const SEED_001_ENTRIES: ReadonlyArray<{ seed: string; here: Array<{ kind: 'agent' | 'role'; id: string }>; reached: string }> = [
  {
    seed: 'general-purpose',
    here: [{ kind: 'role', id: 'general-purpose' }],
    reached:
      "`task` from a run with a workspace (coding; a general-purpose child one level further): the parent's tools and standing instructions in a fresh context.",
  },
  {
    seed: 'explore',
    here: [
      { kind: 'role', id: 'explore' },
      { kind: 'agent', id: 'explore' },
    ],
    reached:
      '`task` from a run with a workspace (the fast search role); `agent:explore`, the router (a question about a named repository), and `task` from a run without a workspace (the long agent in its own cold sandbox).',
  },
  { seed: 'task', here: [{ kind: 'role', id: 'task' }], reached: '`task` from a run with a workspace: one command, reported by code.' },
  {
    seed: 'code-review',
    here: [{ kind: 'agent', id: 'code-review' }],
    reached:
      '`/review` in Slack, on GitHub and from the CLI (`switchboard ask "/review …"`), `agent:code-review`, and `task` from any run that holds it (coding, conductor). Not routed: a review asked in words on a pull request goes to `review`, which posts a verdict.',
  },
  {
    seed: 'research',
    here: [{ kind: 'agent', id: 'research' }],
    reached:
      '`agent:research`, the router (a research question), `task` (a conductor child), and `/research`: a conductor run told to delegate to several `research` children and cite every claim.',
  },
  {
    seed: 'rubber-duck',
    here: [{ kind: 'role', id: 'rubber-duck' }],
    reached:
      "`task` from a run with a workspace, on a model of another family than the run's (`agents.entries.rubber-duck.complementary`); a run for which none is configured is not offered it.",
  },
  {
    seed: 'rem-agent',
    here: [{ kind: 'agent', id: 'rem-agent' }],
    reached:
      "`/subconscious run` in a conversation, and the team board itself after a unit settles or a run ends where the repository turns that on (`board.consolidate`, docs/board.md). Never a message's `agent:` nor `task` (`board_agent_only`).",
  },
];

/** The command that rewrites docs/agents.md from the definitions. */
export const REGENERATE_AGENTS_DOC = 'UPDATE_DOCS=1 npx jest agents/docs.test.ts';

/** docs/agents.md, generated from the built-in definitions, toolsets and tools. */
export function renderAgentsDoc(catalog: Catalog = builtinCatalog()): string {
  return [
    '# Agents',
    '',
    `<!-- Generated from agents/ and tools/ by agents/docs.ts. Do not edit; run: ${REGENERATE_AGENTS_DOC} -->`,
    '',
    'An agent is a named kind of work, declared as data (`agents/builtins/`): its instructions, its exact tool list, the machine it runs on, the scope of its GitHub credential and its budgets. The tool list is the enforcement, the prompt explains it, and the credential is the wall.',
    '',
    '## The agents',
    '',
    '| agent | toolset | machine | identity | budget | turn guard | tokens/call | cache | effort | router | self-serve MCP | surfaces | flag |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...catalog.agents.map(agentRow),
    '',
    ...catalog.agents.flatMap((agent) => [`### ${agent.id} (${agent.displayName})`, '', agent.description, '']),
    '## The packaged catalog (seed 001)',
    '',
    'The seven built-ins of the packaged catalog the design borrows from, what each is here, and where it is reached:',
    '',
    '| seed entry | here | reached by |',
    '| --- | --- | --- |',
    ...SEED_001_ENTRIES.map(
      (entry) => `| \`${entry.seed}\` | ${entry.here.map((d) => `${d.kind} \`${d.id}\``).join(', ')} | ${entry.reached} |`,
    ),
    '',
    '## Slash commands',
    '',
    'The same in Slack, on GitHub and from the CLI: each door hands the thread the message text, and the thread reads a command at its start (after any directives, so `in acme/app: /board` works). An unknown command, or one written wrong, gets a one-line answer listing these; nothing runs.',
    '',
    ...SLASH_COMMANDS.map((command) => `- \`${command.usage}\`: ${command.does}.`),
    '',
    "`/review` and `/research` start one run of `code-review` and `conductor` and leave the thread's own agent as it was. `/subconscious run` and `/board` are answered by the thread itself, through the admission (`admitBoard`); the board and who keeps it are in docs/board.md.",
    '',
    '## Specialist roles',
    '',
    "A run holding the `task` tool may delegate to these roles: the five of the specialist-roles design (`explore`, `worker`, `reviewer`, `debug`, `researcher`) and the task-tool entries of the packaged catalog (`general-purpose`, `task`, `rubber-duck`). A role runs inside the parent's session (its machine, identity and repository); its budget is a ceiling under what the parent has left. `inherit` takes the parent's tools, `task` included while the child may still delegate (a child of a top-level run may; its own children, at the depth limit of 2, do not get `task`), and the parent's MCP servers; an exact list is intersected with the parent's tools, so a listed tool the parent lacks is simply absent. A role's model and effort are the parent's unless the role or `agents.entries.<role>` names its own; the task call's `model` wins over both.",
    '',
    "- `debug` starts from the parent's conversation with its tool calls and results (the symptoms it exists to read), less the calls still in flight, bounded to half its model's window: results are cut to their head and tail first, then the oldest exchanges are left out, with a note saying so.",
    "- `general-purpose` is the parent's whole capability in a fresh context window: its tools and its agent's standing instructions (prompt part `parentInstructions`), with the guidance on calls in one turn.",
    "- `task` runs one command and reports it by code, not by the model's word (`result: command`): one line when the last command passed, that command's whole output when it failed. It does not fix, analyse or retry. Give it a cheap model with `agents.entries.task.model`.",
    "- `rubber-duck` critiques a plan, design or change; its tool list has no file write, no submission and no delegation. It runs on a model of another family than its parent's: the first of `agents.entries.rubber-duck.complementary` (then `.model`) whose family (the provider; each scripted model is its own) differs. A run for which none is configured is not offered rubber-duck: the task tool's description leaves it out, the About block says why, and a call naming it is answered `task_target_unavailable`. A critic on its parent's own model shares its blind spots; a second opinion worth a child run comes from another family (the seed does the same).",
    '',
    '| role | tools | conversation | answer | budget |',
    '| --- | --- | --- | --- | --- |',
    ...catalog.roles.map(
      (role) =>
        `| ${role.id} (${role.displayName}) | ${role.toolset === 'inherit' ? "inherits the parent's" : `\`${toolsetName(role)}\``} | ${role.conversation} | ${role.result} | ${role.budgetMinutes} min |`,
    ),
    '',
    '### Two namespaces',
    '',
    "`agent:<name>` in a message and the router choose among **agents**. The `task` tool's `agent_type` resolves **roles first, but only for a parent with a workspace** (roles run in it); otherwise, and for any name that is not a role, it names a read-only agent (identity not `write`, no publishing tool, no `task`, not a pipeline). So `explore` from a coding run is the fast workspace-search role, `explore` from conductor (no workspace) is the long explore agent in its own cold sandbox, and `agent:explore` in a message is always the agent. Custom definitions may not reuse any existing id.",
    '',
    '## Directives',
    '',
    `At the start of a message, in any order: \`agent:<name>\`, \`budget:<minutes>\`, \`model:<id>\`, \`effort:<low|medium|high>\`, \`in <owner/name>:\`. A malformed or repeated directive is text, never a refusal, and the config block notes it. A budget below ${MIN_DIRECTIVE_BUDGET_MINUTES} minutes (no run can clone, install and answer in less) or above ${MAX_DIRECTIVE_BUDGET_MINUTES} is malformed: \`budget:1\` is text and the run keeps its preset budget. An unknown agent gets a plain answer listing the agents the requester may use. A \`model:\` may name only what \`models.allowed\` lists (default: the models the configuration already names) and a scripted model only by a relative path inside a scripted directory; anything else gets a plain refusal (docs/models.md). From the operator's CLI any model may be named.`,
    '',
    '## Profiles',
    '',
    "Layers: defaults -> agent -> channel -> person -> directive. The agent layer is the definition's own model and effort, over which `agents.entries.<id>.model` and `.effort` set the deployment's choice for that entry (an agent or a role: `agents.entries.task.model` puts the command runner on a small model); the profile says `entry` for a choice from there. The budget only narrows: each layer may lower it, and the profile records which bounded it (`preset`, `channel`, `person`, `directive`, or `parent` for a child run) and whether a budget directive narrowed nothing. `agent:explore budget:30` runs 30 minutes bounded by directive; `budget:200` runs 120 and says the directive narrowed nothing; in a channel bounded to 45 the run is 45 bounded by channel, `budget:60` there narrows nothing, `budget:30` there is the directive's clip. Model and effort are choices, not limits: the latest layer naming one wins, and the profile records which. Machine, identity and tools come from the agent alone. A derived turn guard (six turns a minute) follows the resolved budget.",
    '',
    '## Routing',
    '',
    'An explicit `agent:` directive wins and sticks in its thread; a thread with a sticky agent keeps it. Otherwise the rules for the clear cases, in order: a review request on a pull request ("review this PR", "please re-review") goes to `review`; a plain code-change request (an imperative change verb about code, a file, a PR, or in a named repository, and not issue work) to `ship`; two or more independent read-only asks (a list, or several questions) to `conductor`; a question about a named repository\'s code (`in owner/name: why is the build slow?`) to `explore`; a research question (research, look up, find sources, "with sources", release notes) to `research`. A rule picks only an agent marked `routable` (the router column above) that the person may use; `coding` is never picked without a directive, and an agent with `routable: false` never by the router. Everything else goes to `general`, unless the classifier is on (`agents.routing.classifier.enabled`, off by default because it costs a model turn per such message): then one cheap turn (`agents.routing.classifier.model`, default the default model) reads the message and the descriptions of the routable agents the person may use and names one with a reason; an answer outside them is ignored. The run\'s card says which agent the router picked and why (`Routed to explore: a question about acme/app\'s code (rule repo-question)`), and the classifier\'s turn is counted in the run\'s usage (`purpose: routing`). The admission still decides whether the person may use the routed agent.',
    '',
    '## Admission',
    '',
    "One admission (`agents/admission.ts`) decides for every door alike: a Slack mention, DM, thread reply, stop reaction and Stop button; a GitHub PR comment, review comment, issue comment, an issue assigned to the bot or labelled, an automatic review of a pull request, `@switchboard stop`, and a person's review of a unit's PR; the HTTP API and MCP (jobs, units, steer, stop, reads); the CLI (`ask`, `ship`, `steer`, `stop`, `plan`); the orchestrator's unit tools; `task` children; plans. A door verifies and normalises the request, the admission decides, and a refusal is answered in the conversation it came from with a stable code and one sentence. An agent or a model nobody has (`agent_unknown`, `model_unknown`: `agent:wizard`, `model:nope:x`) is refused at the door itself (`namesRefusal`), before a thread or unit exists, even for an operator: in Slack a message only the person sees, on GitHub a 👎 and a comment, over HTTP a 422, over MCP a tool error, in the CLI exit 1.",
    '',
    '### Who may start what',
    '',
    "In order, the first refusal answers: the catalog (unknown agent), the active set (`featureFlags`, the agent's surfaces), `agents.restrict.agents.<agent>` (the people who may run it), the channel's grant (`agents.channels.<id>.allowedAgents`), the person's grant (`agents.grants.people.<id>.agents`), the API token's grant (`api.tokens[].agents`), the self-serve exclusion (a self-serve token never reaches an agent with a shell or a workspace, nor one with `selfServe: false`, and neither do the child runs it delegates to); then a GitHub actor's role on the repository, a chosen model (`models.allowed`), a message that asks nothing, the sandbox (an agent that reaches a shell is refused while the worker cannot isolate commands), and a pull request where the agent needs one (a review asked on a plain issue). Another rule is one more check in `START_CHECKS`. Budgets and effort are never refused: they only narrow (Profiles), for ship units and their runs too (`agent:ship budget:30` bounds the unit and each of its runs by 30 minutes). A repository run's `owner/name` is then vetted with one GitHub read.",
    '',
    "**GitHub actors.** A trigger from GitHub is admitted only when the actor's role on the repository, read from GitHub's collaborator permission API with the read identity (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`, cached `admission.github.cacheSeconds`), is at least what the agent needs there: `admission.github.repos.<owner/name>.agents.<agent>`, else `admission.github.agents.<agent>`, else `admission.github.repos.<owner/name>.permission`, else `admission.github.permission` (default `write`). A shell agent holding the write identity is never admitted below `write`, any other never below `triage` (`read` would be everyone on a public repository). The webhook's `author_association` is never used. An actor below every agent's requirement on the repository is refused at the door with one 👎 on the comment, and no workflow hears of it; one who passes carries the role, and the thread's admission checks it against the agent the message routes to. A person's review reaches a unit only from someone admitted for `ship`.",
    '',
    '| agent | default GitHub role | lowest configurable |',
    '| --- | --- | --- |',
    ...catalog.agents.map(
      (agent) =>
        `| ${agent.id} | ${githubRequirement(undefined, undefined, agent).role} | ${githubRequirement({ ...DEFAULT_ADMISSION, github: { ...DEFAULT_ADMISSION.github, permission: 'triage' } }, undefined, agent).role} |`,
    ),
    '',
    '### Who may steer, stop and read what',
    '',
    "A steer is a message to a run's (or unit's) agent: the sender must be admitted for that agent now, and be its requester, an operator, or an owner the conversation's surface names. In a Slack thread only the run's requester steers it (a reply from anyone else is answered and not sent to the run); in a GitHub PR conversation the repository's collaborators admitted for the agent own it (GitHub's own permission model); over the API and MCP a token reaches only its own person's jobs, units and threads. Stop and read: the requester, or an operator (`admission.operators`, an API token with `admin: true`, or the CLI, which holds the Temporal client); on GitHub the collaborators admitted for the agent may also stop the conversation's work (`@switchboard stop`, unassigning the issue or removing its label). A repository's `agents.allowed` (its `.switchboard.yml`, or the deployment's `repositories` section) limits which agents start on it, whoever asks (`repo_agent_not_allowed`). The orchestrator's unit tools work only in the person's own private Slack DM (or the CLI): `unit_start` is admitted as `ship` for that person, and `unit_steer`, `unit_stop` and a `unit_start` that would steer reach only units the person asked for or that are linked to the conversation.",
    '',
    '### Who keeps the team board',
    '',
    "`admitBoard` decides every read and change of a team board (docs/board.md), at every door: `/board` and `/subconscious run` in a conversation, `switchboard board`, and a board itself before it runs rem-agent for someone's work. An operator may do anything. A board that is off (`board.enabled`) answers nobody else (`board_off`). Anyone the deployment admits reads it and adds to it, but what a non-keeper adds, and what rem-agent takes from a non-keeper's work, stays `proposed`; only a keeper — the people `board.keepers.people` names, or on GitHub a collaborator with at least `board.keepers.role` (`write`) — or an operator keeps or retires an entry (`board_keeper`). A self-serve token only reads. rem-agent itself is started only by a board (`board_agent_only`).",
    '',
    '### Refusal codes',
    '',
    '| code | kind | means |',
    '| --- | --- | --- |',
    ...REFUSAL_CODES.map((code) => `| \`${code}\` | ${REFUSALS[code].kind} | ${REFUSALS[code].means} |`),
    '',
    "Kinds: `access` (HTTP 403 `access_refused`), `request` (422 `request_refused`), `unavailable` (503: `sandbox_unavailable`, or `github_unavailable` when GitHub did not answer). The API puts the code in the problem's `refusal` member, MCP in the tool error, a thread in its message outcome.",
    '',
    '## Toolsets',
    '',
    ...TOOLSET_NAMES.flatMap((name) => [
      `- \`${name}\`: ${TOOLSET_PURPOSES[name]} ${(TOOLSETS[name] as readonly string[]).length ? (TOOLSETS[name] as readonly string[]).map((tool) => `\`${tool}\``).join(', ') : '(no tools)'}`,
    ]),
    '',
    '## Tools',
    '',
    '| tool | class | publishes | concurrency-safe | executor | purpose |',
    '| --- | --- | --- | --- | --- | --- |',
    ...Object.values(TOOLS).map(
      (tool) =>
        `| \`${tool.name}\` | ${tool.sideEffect} | ${yes(tool.publishes)} | ${yes(tool.concurrencySafe)} | ${tool.executor} | ${tool.description.replace(/\|/g, '\\|')} |`,
    ),
    '',
    '## MCP servers as tools',
    '',
    "The `mcp` section attaches the team's MCP servers to agents (`mcp.agents.<id>: [{server, tools}]`, `tools` an allowlist of the server's tool names with `*` globs); a custom agent may also list `mcp__<server>__<tool>` (or `mcp__<server>__*`) in its `tools`. A stdio server runs inside the run's sandbox as its unprivileged user, started with the sandbox's own argv and environment (never the worker's); an HTTP server is reached from the worker through the sandbox door's address policy, with credentials from the worker's environment that never enter the sandbox. A run discovers its servers' tools once, when it starts, and shows them as `mcp__<server>__<tool>` with their schemas and a prompt block, the same byte for byte every turn. A call is an activity: a result is bounded like a shell command's output, a call that hangs past `callTimeoutMs` is one tool error and the server is started afresh, a server that crashes is reported and started again at the next call (three times a run at most). Calls are counted per server in the run's record and in `cost.mcpCalls`. `mcp.servers.<name>.people` limits a server to named people: anyone else's runs go on without it (`mcp_server_restricted`). docs/tools.md has the configuration.",
    '',
    '## Custom agents',
    '',
    "Every `<id>.agent.yaml` in `agents.customAgentsDir` (relative to the config file's folder) joins the catalog with the same fields as a built-in (`kind: role` makes a role). Instead of a `toolset` it may list its own `tools` (built-in tool names and MCP entries), and `promptParts` chooses which blocks follow its prompt: `tools`, `configuration`, `about` (on unless set false), `parallel` (how calls of one turn run) and, for a role, `parentInstructions` (the parent agent's standing instructions). A role may answer its parent as a command runner (`result: command`). A bad file is reported with its path and the failing field and skipped; the rest load. `switchboard agents list` shows the active catalog and any problems; `--all` adds the inactive entries and why (a feature flag that is off, a surface the agent does not serve).",
    '',
  ].join('\n');
}

function agentRow(agent: AgentDefinition): string {
  return `| ${agent.id} | \`${toolsetName(agent)}\` | ${agent.machine} | ${agent.identity} | ${agent.budgetMinutes} min | ${turnGuardFor(agent)} | ${agent.tokenCap} | ${agent.cacheTtl} | ${agent.effort ?? '(config)'} | ${yes(agent.routable)} | ${yes(agent.selfServe)} | ${agent.surfaces.join(', ')} | ${agent.featureFlag ?? ''} |`;
}

function yes(value: boolean): string {
  return value ? 'yes' : 'no';
}
