import { type AgentDefinitionInput } from '../definition';

export const ship: AgentDefinitionInput = {
  id: 'ship',
  displayName: 'Ship',
  description:
    'Carries one code change from a request to a ready pull request: coding, review, fixing findings and waiting for CI. ' +
    'A pipeline that starts coding and review runs; the default for a plain code-change request.',
  toolset: 'pipeline',
  // The pipeline's coding children need the repository and a token that can push.
  machine: 'repo-resident',
  identity: 'write',
  budgetMinutes: 90,
  tokenCap: 32_000,
  pipeline: 'ship',
  routable: true,
  selfServe: false,
};
