import { z } from './lazy-zod';

/**
 * `owner/name` as GitHub allows it: an owner of 1-39 letters, digits and hyphens (not first),
 * a name of 1-100 letters, digits, `.`, `_` and `-` other than `.` and `..`. The one grammar
 * for every repository that arrives from outside (webhooks, directives, tools, the CLI) and
 * may become part of a workflow id.
 */
export const REPOSITORY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;

export function isRepositoryName(value: unknown): value is string {
  return typeof value === 'string' && REPOSITORY_PATTERN.test(value);
}

/** An issue or pull request number: a positive safe integer (never `1e300`, `2.5`, `0` or `-1`). */
export function isItemNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** `owner/name`, as GitHub spells it. */
export const repositoryField = () => z.string().regex(REPOSITORY_PATTERN, 'expected owner/name').describe('The repository as owner/name.');

/** A git ref: branch, tag or commit SHA. */
export const refField = () => z.string().min(1).optional().describe('Branch, tag or commit SHA (default: the default branch).');

export const issueNumberField = () => z.number().int().positive().describe('The issue or pull request number.');
