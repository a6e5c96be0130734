import { Context } from '@temporalio/activity';

/**
 * The Temporal activity context when this code runs inside an activity, otherwise
 * undefined, so the sandbox also works from tests and scripts.
 */
export function currentActivityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
