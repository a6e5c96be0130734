import { type Logger } from '../infra/logger';
import { createConsoleStatusActivities } from './status/console-status';

/** What the activities need from the outside world; each front end or test builds its own. */
export interface ActivityDeps {
  logger: Logger;
}

/**
 * Builds every activity implementation from its dependencies. The worker registers the
 * result; workflows call them by name through `proxyActivities` with their types only.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createConsoleStatusActivities({ logger: deps.logger }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
