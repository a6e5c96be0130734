import { type Command } from 'commander';
import { main } from '../../infra/main';

/**
 * The process roles: `switchboard worker` polls the task queue (and its host's own queue) and
 * runs workflows and activities; `switchboard server` serves the front ends (Slack, GitHub
 * webhooks, HTTP API, MCP, /healthz). Both only connect to Temporal, so each scales by adding
 * processes. `npm start` runs both in one process with the embedded Temporal.
 */
export function registerRoleCommands(program: Command): void {
  program
    .command('worker')
    .description('run a worker only (workflows, activities, sandboxes); connects to the configured Temporal')
    .action(() => main({ worker: true, server: false, embedded: false }));
  program
    .command('server')
    .description('run the front ends only (Slack, GitHub webhooks, HTTP API, MCP, /healthz); connects to the configured Temporal')
    .action(() => main({ worker: false, server: true, embedded: false }));
}
