import { isCancellation } from '@temporalio/workflow';
import type { GitHubActivities, RepoSettingsResult } from '../../activities/github';
import type { LoadedInstructions } from '../contracts/instructions';
import type { WorkspaceRef } from '../contracts/sandbox';
import type { InstructionsActivities, SandboxActivities } from '../activity-proxies';
import type { RepoContext, SetupOutcome } from '../contracts';
import type { RunState } from './run-state';
import { SETUP_CACHED, SETUP_RESTORED, setupScript } from '../../agents/repo-setup';

/**
 * The `patched()` id of a run that brings its repository along before its first turn: the
 * instruction files into its system prompt, the settings' setup commands run in its checkout
 * (docs/versioning.md). Runs recorded before it start with neither.
 */
export const RUN_REPO_CONTEXT = 'run-repo-context';

/** The end of the setup's output the card shows and the model is told. */
const SETUP_OUTPUT_TAIL = 1_500;

export interface RepoContextDeps {
  state: RunState;
  workspace: WorkspaceRef;
  /** The workspace holds the repository's checkout (a unit's run, a direct run): files are read and setup runs there. */
  checkout: boolean;
  activities: {
    settings: Pick<GitHubActivities, 'repoSettings'>;
    /** On the workspace's host when it is given a workspace. */
    instructions: InstructionsActivities;
    shell: Pick<SandboxActivities, 'bash'>;
  };
  touchCard(): void;
}

/**
 * What a run brings from its repository before its first model turn (plain class; unit tests
 * drive it with fakes): its settings, its instruction files — read inside the checkout's
 * sandbox when the run has one, else through the contents API — into the system prompt (once,
 * so every turn sends the same bytes), and its setup commands run in the checkout with the
 * run's own grant and time bound, skipped when this workspace did the same setup before. Nothing
 * here fails the run: a read that fails leaves that part out, a failed setup is told to the model.
 */
export class RepoContextLoader {
  /** The repository's settings as read before the first turn (absent: not read, or unreadable). */
  settings?: RepoSettingsResult;

  constructor(private readonly deps: RepoContextDeps) {}

  async load(repo: string): Promise<void> {
    const { state, activities, checkout, workspace } = this.deps;
    const context: RepoContext = { repo };
    state.repoContext = context;
    const settings = await orNothing(() => activities.settings.repoSettings({ repo }));
    this.settings = settings;
    // A direct review gates by the repository's own severity, where it sets one.
    if (settings && state.direct?.mode === 'review') state.direct.gate = settings.settings.review.severity;
    const pullRequest = state.direct?.pullRequest ?? pullRequestOf(state);
    const paths = state.input.paths?.length ? state.input.paths : pathsNamed(state.input.request);
    const loaded = await orNothing(() =>
      activities.instructions.loadInstructions({
        repo,
        ...(paths.length ? { paths } : {}),
        ...(pullRequest !== undefined ? { pullRequest } : {}),
        ...(checkout ? { workspace } : {}),
      }),
    );
    if (loaded && loaded.files.length > 0)
      context.instructions = {
        files: loaded.files.map((file) => file.path),
        source: loaded.source,
        block: instructionsBlock(repo, loaded),
        ...(loaded.skipped.length ? { skipped: loaded.skipped.map((skip) => `${skip.path} (${skip.why})`) } : {}),
      };
    this.deps.touchCard();
    const setup = settings?.settings.setup;
    if (setup && checkout) await this.runSetup(setup);
  }

  private async runSetup(setup: NonNullable<RepoSettingsResult['settings']['setup']>): Promise<void> {
    const { state, activities, workspace } = this.deps;
    const { profile } = state.input;
    const outcome: SetupOutcome = { state: 'running', commands: setup.commands.length };
    state.repoContext!.setup = outcome;
    this.deps.touchCard();
    try {
      const ran = await activities.shell.bash({
        workspace,
        command: setupScript(setup.commands, setup.lockfiles),
        // A resident checkout's worker host may copy in the results of the same setup instead of running it.
        setup: { repo: state.repoContext!.repo, commands: setup.commands, lockfiles: setup.lockfiles },
        timeoutMs: setup.timeoutSeconds * 1_000,
        // The run's own grant: its identity and repository at the door, its agent's and machine's destinations.
        identity: profile.identity,
        ...(profile.repo ? { repo: profile.repo.value } : {}),
        agent: profile.agent,
        machine: profile.machine,
      });
      const output = ran.output
        .split('\n')
        .filter((line) => !line.startsWith('switchboard-setup:'))
        .join('\n')
        .trim();
      Object.assign(outcome, {
        state: ran.output.startsWith(SETUP_CACHED)
          ? 'cached'
          : ran.output.startsWith(SETUP_RESTORED)
            ? 'restored'
            : ran.timedOut
              ? 'timed_out'
              : ran.exitCode === 0
                ? 'ran'
                : 'failed',
        exitCode: ran.exitCode,
        durationMs: ran.durationMs,
        ...(output ? { output: output.slice(-SETUP_OUTPUT_TAIL) } : {}),
      } satisfies Partial<SetupOutcome>);
    } catch (error) {
      if (isCancellation(error)) throw error;
      Object.assign(outcome, { state: 'failed', output: `The setup could not run: ${messageOf(error)}` });
    }
    this.tellModel(setupNote(setup.commands, outcome, setup.timeoutSeconds));
    this.deps.touchCard();
  }

  /** The note joins the request (the task's last message), before the first turn: the same bytes every turn after. */
  private tellModel(note: string): void {
    const { state } = this.deps;
    const at = state.taskLength - 1;
    const request = state.messages[at];
    if (request?.role === 'user') state.messages[at] = { ...request, text: `${request.text}\n\n${note}` };
  }
}

/** The repository a run works on: its profile's, else its GitHub conversation's. */
export function runRepository(state: Pick<RunState, 'input'>): string | undefined {
  const { profile, replyTarget } = state.input;
  return profile.repo?.value ?? (replyTarget.kind === 'github' ? replyTarget.repo : undefined);
}

/** The pull request a run was asked on (not a plain issue), for its changed files. */
function pullRequestOf(state: Pick<RunState, 'input'>): number | undefined {
  const target = state.input.replyTarget;
  return target.kind === 'github' && !target.issue ? target.pullRequest : undefined;
}

/** Paths a request names (`src/total.js`, `docs/api.md`): the paths in play when nothing else says. */
export function pathsNamed(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/(?:^|[\s`'"(])((?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s`'"),.:;])/g)) {
    if (!match[1].startsWith('http') && !match[1].includes('..')) found.add(match[1].replace(/^\.\//, ''));
    if (found.size >= 20) break;
  }
  return [...found];
}

/** The system prompt's part for the repository's instruction files, most specific first. */
export function instructionsBlock(repo: string, loaded: LoadedInstructions): string {
  const where = loaded.source === 'checkout' ? 'its checkout' : 'its default branch on GitHub';
  const parts = [
    '## Repository instructions',
    `${repo} keeps instructions for agents that work in it; these were read from ${where}, the nearest AGENTS.md to the paths in play first. ` +
      'Follow them where they do not conflict with the request, your tools or your credential.',
  ];
  for (const file of loaded.files)
    parts.push(
      `### ${file.path}\n${file.text}${file.cut ? `\n[… ${file.path} cut at ${file.text.length} of its ${file.chars} characters]` : ''}`,
    );
  return parts.join('\n\n');
}

export { setupScript };

/** What the model is told of the setup, with the end of its output when it failed. */
export function setupNote(commands: readonly string[], outcome: SetupOutcome, timeoutSeconds: number): string {
  const list = commands.map((command) => `\`${command.split('\n')[0]}\``).join(', ');
  const seconds = outcome.durationMs !== undefined ? ` in ${Math.round(outcome.durationMs / 1_000)} s` : '';
  switch (outcome.state) {
    case 'cached':
      return `(setup) The repository's setup (${list}) was done before in this workspace with the same commands and lockfiles, so it was not run again.`;
    case 'restored':
      return `(setup) The repository's setup (${list}) was not run: what it produced in an earlier run with the same commands and lockfiles (its untracked and ignored files, and its home folder) was copied into your workspace from this worker host's cache.`;
    case 'ran':
      return `(setup) The repository's setup ran in your workspace before your first turn and succeeded${seconds}: ${list}.`;
    default: {
      const why =
        outcome.state === 'timed_out'
          ? `did not finish within ${timeoutSeconds} s`
          : `failed${outcome.exitCode !== undefined ? ` (exit ${outcome.exitCode})` : ''}${seconds}`;
      const tail = outcome.output ? `\nThe end of its output:\n\`\`\`\n${outcome.output}\n\`\`\`` : '';
      return `(setup) The repository's setup (${list}) ${why}. The run goes on without it: do what you need of it yourself.${tail}`;
    }
  }
}

async function orNothing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isCancellation(error)) throw error;
    return undefined;
  }
}

function messageOf(error: unknown): string {
  const failure = error as { message?: string; cause?: { message?: string } };
  return failure.cause?.message ?? failure.message ?? String(error);
}
