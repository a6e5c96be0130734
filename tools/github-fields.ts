import { z } from 'zod';

/** `owner/name`, as GitHub spells it. */
export const repositoryField = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/, 'expected owner/name')
    .describe('The repository as owner/name.');

/** A git ref: branch, tag or commit SHA. */
export const refField = () => z.string().min(1).optional().describe('Branch, tag or commit SHA (default: the default branch).');

export const issueNumberField = () => z.number().int().positive().describe('The issue or pull request number.');
