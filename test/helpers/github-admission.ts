import { createGitHubIdentities } from '../../activities/github';
import { defaultAgentsConfig, type AgentsConfigInput } from '../../agents/config';
import { AdmissionConfigSchema, type AdmissionConfigInput } from '../../infra/config/admission-section';
import { createDoorAdmission, type DoorAdmission } from '../../infra/door-admission';

/**
 * The GitHub door's admission for a test's webhook router: the actor gate reads roles from the
 * (local) GitHub with `readToken` and reacts with `writeToken`; no answer is cached, so a test
 * that changes a role sees it at once.
 */
export function githubDoorAdmission(
  github: { apiUrl: string; gitUrl: string },
  tokens: { read: string; write?: string },
  options: { agents?: AgentsConfigInput; admission?: AdmissionConfigInput } = {},
): DoorAdmission {
  return createDoorAdmission({
    agents: { config: defaultAgentsConfig(options.agents ?? {}), admission: AdmissionConfigSchema.parse(options.admission ?? {}) },
    identities: createGitHubIdentities({ apiUrl: github.apiUrl, gitUrl: github.gitUrl, tokens }),
    cacheSeconds: 0,
  });
}
