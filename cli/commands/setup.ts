import { type Command, InvalidArgumentError } from 'commander';
import { runSetupGitHub } from '../setup/github';
import { runSetupSlack, runSetupSlackSecrets } from '../setup/slack';

/**
 * `switchboard setup github|slack`: the deployment's GitHub App and Slack app made from manifests
 * generated from the code's own lists; their secrets go to the env file (0600), never the config.
 */
export function registerSetupCommands(program: Command): void {
  const setup = program.command('setup').description("make the deployment's GitHub App and Slack app from manifests");
  setup
    .command('github')
    .description(
      'create the GitHub App in a browser (manifest flow), write its credentials to the env file, wait for its installation, check it',
    )
    .option('--org <name>', 'create it for this organization (default: your own account)')
    .option('--github-url <url>', 'GitHub Enterprise Server, e.g. https://ghe.example.com (default: github.apiUrl / github.gitUrl)')
    .option('--public-url <url>', 'where GitHub reaches this deployment (default: http.publicUrl)')
    .option('--name <name>', "the App's name (editable on GitHub's page; 34 characters at most)")
    .option('--port <n>', "the setup page's port on 127.0.0.1 (default: any free one)", portNumber)
    .action(async (options: { org?: string; githubUrl?: string; publicUrl?: string; name?: string; port?: number }) => {
      process.exitCode = await runSetupGitHub(options);
    });
  setup
    .command('slack')
    .description("write this deployment's Slack app manifest and say the three steps; --secrets then takes the tokens")
    .option('--out <file>', 'where the manifest goes', 'slack-app-manifest.yaml')
    .option('--public-url <url>', 'where Slack reaches this deployment (default: http.publicUrl)')
    .option('--name <name>', "the app's name in Slack", 'Switchboard')
    .option(
      '--secrets',
      'read the bot token and signing secret (NAME=value lines on stdin, or asked), write them to the env file, check the scopes',
    )
    .action(async (options: { out?: string; publicUrl?: string; name?: string; secrets?: boolean }) => {
      process.exitCode = options.secrets ? await runSetupSlackSecrets(options) : runSetupSlack(options);
    });
}

function portNumber(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('a port number');
  return port;
}
