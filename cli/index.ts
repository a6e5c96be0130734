import { Command } from 'commander';
import { applyEnvFile } from '../infra/config/env-file';
import { registerAskCommand } from './commands/ask';
import { registerAgentsCommand } from './commands/agents';
import { registerDoctorCommand } from './commands/doctor';
import { registerProfileCommand } from './commands/profile';
import { registerRunsCommand, registerSteerCommand, registerStopCommand, registerStuckCommand } from './commands/runs';
import { registerShipCommands } from './commands/ship';
import { registerPlanCommands } from './commands/plan';
import { registerUsageCommand } from './commands/usage';
import { registerMcpCommand } from './commands/mcp';
import { registerTokensCommand } from './commands/tokens';
import { registerRoleCommands } from './commands/roles';
import { registerResendCommand } from './commands/resend';
import { registerPayloadsCommand } from './commands/payloads';
import { registerSessionCommand } from './commands/session';
import { registerSetupCommands } from './commands/setup';
import { registerBoardCommand } from './commands/board';

/** Builds the `switchboard` operator command; each command lives in cli/commands/. */
export function createProgram(): Command {
  const program = new Command();
  program
    .name('switchboard')
    .description(
      'Operate Switchboard: make its GitHub App and Slack app, check the setup, list agents, ask, inspect and steer runs, units and plans, team boards, usage and cost, API tokens, MCP, the claim-check folder, session page links; run a worker or the front ends.',
    )
    .showHelpAfterError();
  registerSetupCommands(program);
  registerDoctorCommand(program);
  registerAgentsCommand(program);
  registerProfileCommand(program);
  registerAskCommand(program);
  registerRunsCommand(program);
  registerSteerCommand(program);
  registerStopCommand(program);
  registerStuckCommand(program);
  registerResendCommand(program);
  registerShipCommands(program);
  registerPlanCommands(program);
  registerUsageCommand(program);
  registerTokensCommand(program);
  registerMcpCommand(program);
  registerRoleCommands(program);
  registerPayloadsCommand(program);
  registerSessionCommand(program);
  registerBoardCommand(program);
  return program;
}

export async function runCli(argv: string[] = process.argv): Promise<void> {
  try {
    // The deployment's secrets (SWITCHBOARD_ENV_FILE, else ./switchboard.env) under the environment.
    applyEnvFile();
    await createProgram().parseAsync(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}

if (require.main === module) void runCli();
