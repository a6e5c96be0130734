import { type Command } from 'commander';
import {
  allowedModels,
  authorize,
  checkModelChoice,
  describeBudget,
  parseDirectives,
  type Requester,
  resolveProfile,
  route,
  usableAgents,
} from '../../agents';
import { type AgentsCommandDeps, parseSurface, withCatalog, writerOf } from './agents';

interface ProfileOptions {
  channel?: string;
  user?: string;
  surface: string;
  selfServe?: boolean;
  sticky?: string;
  json?: boolean;
}

/**
 * `switchboard profile "<message>"`: what Switchboard would do with a message — the
 * directives, the routed agent, the access decision, and the resolved profile with what
 * bounded or chose each field. A refusal prints the rule and the alternatives (exit 1).
 */
export function registerProfileCommand(program: Command, deps: AgentsCommandDeps = {}): void {
  program
    .command('profile')
    .description('Resolve the agent and profile a message would run with, or the refusal.')
    .argument('<message>', 'the message, directives included')
    .option('--channel <id>', 'the channel it is sent in')
    .option('--user <id>', 'the person sending it')
    .option('--surface <surface>', 'slack, github, http, mcp or cli', 'slack')
    .option('--self-serve', 'as a self-serve MCP caller')
    .option('--sticky <agent>', 'the agent this thread already chose explicitly')
    .option('--json', 'print JSON')
    .action(async (message: string, options: ProfileOptions) => {
      await withCatalog(deps, ({ config, catalog, allowedModels: configured }) => {
        const write = writerOf(deps);
        const requester: Requester = {
          surface: parseSurface(options.surface),
          userId: options.user,
          channelId: options.channel,
          selfServe: options.selfServe,
        };
        const { directives, text, ignored } = parseDirectives(message);
        const decision = route({ directives, text, stickyAgent: options.sticky, available: usableAgents(catalog, config, requester) });
        const access = authorize(catalog, config, requester, decision.agent);
        if (!access.ok) {
          if (options.json) write(JSON.stringify({ route: decision, refusal: access, text }, null, 2));
          else write(`refused: ${access.message}\nrule: ${access.rule} (${access.code})`);
          return 1;
        }
        const model =
          directives.model === undefined
            ? undefined
            : checkModelChoice({
                model: directives.model,
                surface: requester.surface,
                allowed: allowedModels(catalog, config, configured),
              });
        if (model && !model.ok) {
          if (options.json)
            write(
              JSON.stringify(
                { route: decision, refusal: { code: 'model_not_allowed', rule: model.rule, message: model.message }, text },
                null,
                2,
              ),
            );
          else write(`refused: ${model.message}\nrule: ${model.rule} (model_not_allowed)`);
          return 1;
        }
        const profile = resolveProfile({
          agent: access.agent,
          config,
          channelId: options.channel,
          userId: options.user,
          directives,
          ignoredDirectives: ignored,
        });
        if (options.json) {
          write(JSON.stringify({ route: decision, profile, text }, null, 2));
          return 0;
        }
        const lines = [
          `agent: ${profile.agent} (${profile.displayName}), by ${decision.reason}`,
          `toolset: ${profile.toolset} (${profile.tools.length} tools)${profile.pipeline ? `; pipeline ${profile.pipeline}` : ''}`,
          `machine: ${profile.machine}; identity: ${profile.identity}`,
          `model: ${profile.model.value} (${profile.model.chosenBy})`,
          `effort: ${profile.effort.value} (${profile.effort.chosenBy})`,
          `budget: ${describeBudget(profile.budget)}; bounded by ${profile.budget.boundedBy}`,
          `turn guard: ${profile.turnGuard}; token cap: ${profile.tokenCap}; cache: ${profile.cacheTtl}`,
        ];
        if (profile.repo) lines.push(`repository: ${profile.repo.value} (${profile.repo.chosenBy})`);
        for (const item of ignored) lines.push(`read as text: ${item.token} (${item.reason})`);
        lines.push(`text: ${text}`);
        write(lines.join('\n'));
        return 0;
      });
    });
}
