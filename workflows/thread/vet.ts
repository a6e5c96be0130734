import type { VetRepositoryInput, VetRepositoryResult } from '../contracts/github';
import type { Profile } from '../contracts/profile';
import type { Decision } from './decide';

/**
 * The marker that puts the repository vet into a thread's history. Threads recorded before
 * it started their repository runs without a vet; remove the `false` branch once no thread
 * started before this change can still be running (docs/versioning.md).
 */
export const VET_REPOSITORY_PATCH = 'vet-repository';

/** A run on a repository machine class names a bare `owner/name` that must be vetted before it starts. */
export function needsVetting(profile: Profile): boolean {
  return profile.machine !== 'none' && profile.repo !== undefined;
}

/** The vet uses the run's own identity: the token its sandbox will hold (read when it holds none). */
export function vetInput(profile: Profile): VetRepositoryInput {
  return { repo: profile.repo!.value, identity: profile.identity === 'write' ? 'write' : 'read' };
}

/**
 * The refusal for a repository the vet did not pass, in plain words with the stable code the
 * explore spec names: a repository the identity cannot see is `repo_not_visible`; GitHub's
 * silence (an error, a timeout, no credential to ask with) is `repo_unverified`. Nothing runs,
 * no workspace is prepared, and the thread keeps the agent the person chose.
 */
export function vetRefusal(decision: Extract<Decision, { kind: 'run' }>, vet: VetRepositoryResult): Decision | undefined {
  if (vet.ok) return undefined;
  const reply = vetRefusalText(decision.agent, decision.profile, vet);
  return { kind: 'refused', reply, code: vet.code, ...(decision.stickyAgent ? { stickyAgent: decision.stickyAgent } : {}) };
}

/** The words of a refused vet (a thread's run, or a run's `task` child), with its stable code. */
export function vetRefusalText(agent: string, profile: Profile, vet: Extract<VetRepositoryResult, { ok: false }>): string {
  return vet.code === 'repo_not_visible'
    ? `${vet.repo} is not visible to the ${vetInput(profile).identity} GitHub identity ${agent} runs with, so nothing was run ` +
        `(repo_not_visible). Check the owner/name, or ask an operator to give Switchboard's GitHub identity access to ${vet.repo}.`
    : `${vet.reason}, so nothing was run (repo_unverified). Ask again in a moment; if it keeps happening, ` +
        `an operator can check Switchboard's GitHub connection.`;
}
