import { Command } from 'commander';
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
import { registerBoardCommand } from './commands/board';

/** Builds the `switchboard` operator command; each command lives in cli/commands/. */
export function createProgram(): Command {
  const program = new Command();
  program
    .name('switchboard')
    .description(
      'Operate Switchboard: check the setup, list agents, ask, inspect and steer runs, units and plans, team boards, usage and cost, API tokens, MCP, the claim-check folder; run a worker or the front ends.',
    )
    .showHelpAfterError();
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
  registerBoardCommand(program);
  return program;
}

export async function runCli(argv: string[] = process.argv): Promise<void> {
  try {
    await createProgram().parseAsync(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}

if (require.main === module) void runCli();
