import { type ActivityDeps } from '../activities';
import { hasGitHubCredential, verifyGitHubAccess } from '../activities/github/verify-access';
import { modelAccessChecks } from '../activities/models/verify-access';
import { describeSlackStartError, type SlackFrontEnd } from '../server/slack/front-end';
import { type SwitchboardConfig } from './config';
import { type ServiceCheck } from './external-services';

/**
 * The outside services this process depends on but can serve without, each with its start-up
 * check: the Slack front end (`auth.test`, and the socket in Socket Mode), GitHub when a
 * credential is set, and each model API whose key is set.
 */
export async function externalServiceChecks(
  config: SwitchboardConfig,
  deps: Pick<ActivityDeps, 'github'>,
  slack: SlackFrontEnd | undefined,
): Promise<ServiceCheck[]> {
  const checks: ServiceCheck[] = [];
  if (slack) {
    checks.push({ name: 'slack', check: () => slack.start(), describe: (error) => describeSlackStartError(error, config.slack.apiUrl) });
  }
  const { identities } = deps.github;
  if (await hasGitHubCredential(identities)) {
    checks.push({ name: 'github', check: () => verifyGitHubAccess(identities, config.github.requestTimeoutMs) });
  }
  const models = modelAccessChecks({
    anthropicBaseUrl: config.models.anthropic.baseUrl,
    openaiBaseUrl: config.models.openai.baseUrl,
    timeoutMs: Math.min(config.models.requestTimeoutMs, 10_000),
  });
  for (const model of models) checks.push({ name: model.provider, check: () => model.verify() });
  return checks;
}
