import { WorkflowNotFoundError } from '@temporalio/client';
import { type Command, InvalidArgumentError } from 'commander';
import { SessionLinks, sessionKey, serverBaseUrl } from '../../infra/session-links';
import { withCliClient } from '../temporal-client';

const HOUR = 3_600_000;

/**
 * `switchboard session <workflow id>`: a signed link to the workflow's live session page. The
 * operator holds the Temporal client, so any workflow Temporal shows them may be linked; it is
 * looked up first, so a mistyped id is an error rather than a link to nothing. The link is signed
 * with the deployment's key (SWITCHBOARD_SESSION_SECRET, else the data dir's key file), the same
 * one the server checks.
 */
export function registerSessionCommand(program: Command): void {
  program
    .command('session')
    .description("print a signed link to a workflow's live session page (a thread, run, unit or plan)")
    .argument('<workflowId>', 'the workflow id, e.g. unit:acme/app#42 or run:thread:api:…:1')
    .option('--hours <n>', 'how long the link opens the page (at most sessions.linkTtlHours)', positiveNumber)
    .action(async (workflowId: string, options: { hours?: number }) => {
      await withCliClient(async ({ client, loaded }) => {
        const { config } = loaded;
        if (!config.sessions.enabled) throw new Error('the session pages are off (sessions.enabled: false): there is no page to link');
        try {
          await client.workflow.getHandle(workflowId).describe();
        } catch (error) {
          if (error instanceof WorkflowNotFoundError)
            throw new Error(`no workflow ${workflowId} in namespace ${config.temporal.namespace}`);
          throw error;
        }
        const ttlHours = Math.min(options.hours ?? config.sessions.linkTtlHours, config.sessions.linkTtlHours);
        const links = new SessionLinks(sessionKey(config).secret, ttlHours * HOUR, serverBaseUrl(config));
        const link = links.url(workflowId);
        console.log(link);
        if (!links.baseUrl) console.error('(relative: set http.publicUrl (SWITCHBOARD_PUBLIC_URL) for a full address)');
      });
    });
}

function positiveNumber(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('a positive number of hours');
  return parsed;
}
