import { randomBytes } from 'node:crypto';
import { type Command } from 'commander';
import { ApiTokenSchema } from '../../infra/config/api-section';
import { hashToken, newToken, tokenConfigLines } from '../../infra/api-tokens';

export interface TokenCreateOptions {
  user: string;
  id?: string;
  agents?: string;
  selfServe?: boolean;
  admin?: boolean;
}

/**
 * A new API/MCP token: the token (shown this once; Switchboard keeps only its hash) and the
 * `api.tokens` entry to add to switchboard.yaml, or the JSON for SWITCHBOARD_API_TOKENS.
 */
export function createTokenText(options: TokenCreateOptions, token = newToken()): { token: string; text: string } {
  const entry = ApiTokenSchema.parse({
    id: options.id ?? `${options.user.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40)}-${randomBytes(3).toString('hex')}`,
    sha256: hashToken(token),
    user: options.user,
    ...(options.selfServe ? { selfServe: true } : {}),
    ...(options.admin ? { admin: true } : {}),
    ...(options.agents
      ? {
          agents: options.agents
            .split(',')
            .map((agent) => agent.trim())
            .filter(Boolean),
        }
      : {}),
  });
  const json = JSON.stringify({
    id: entry.id,
    sha256: entry.sha256,
    user: entry.user,
    ...(entry.selfServe ? { selfServe: true } : {}),
    ...(entry.agents ? { agents: entry.agents } : {}),
    ...(entry.admin ? { admin: true } : {}),
  });
  const text = [
    `token: ${token}`,
    '',
    'Keep it now: it is not stored and cannot be shown again. Add this entry to switchboard.yaml:',
    '',
    'api:',
    '  tokens:',
    ...tokenConfigLines(entry),
    '',
    `or, in the environment: SWITCHBOARD_API_TOKENS='[${json}]'`,
    '',
    `Use it as: Authorization: Bearer ${token.slice(0, 8)}…`,
  ].join('\n');
  return { token, text };
}

export function registerTokensCommand(program: Command): void {
  const tokens = program.command('tokens').description('bearer tokens for the HTTP API and MCP (only their hashes are stored)');
  tokens
    .command('create')
    .description('print a new token once, and the config entry (its hash) to add')
    .requiredOption('--user <id>', 'the requester id its runs carry (the id restrict.agents and grants name)')
    .option('--id <name>', 'a name for the token in config and logs')
    .option('--agents <list>', 'comma-separated: the only agents this token may reach')
    .option('--self-serve', 'a self-serve token: never reaches an agent that holds a shell')
    .option('--admin', "an admin token: reads, steers and stops every person's jobs and units")
    .action((options: TokenCreateOptions) => {
      try {
        console.log(createTokenText(options).text);
      } catch (error) {
        const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
        console.error(issues ? issues.map((issue) => `--${String(issue.path[0])}: ${issue.message}`).join('\n') : String(error));
        process.exitCode = 1;
      }
    });
}
