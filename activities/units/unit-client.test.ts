import { TypedSearchAttributes } from '@temporalio/common';
import { fleetStatusTool } from '../../tools/fleet-status';
import { Phase, PullRequest, Repo } from '../../workflows/search-attributes';
import { unitSummaryOf } from './unit-client';

describe('what fleet_status lists', () => {
  it('holds every field its description names: phase, repository, PR and age', () => {
    const now = Date.parse('2026-05-01T12:00:00Z');
    const row = unitSummaryOf(
      {
        workflowId: 'unit:acme/app#7',
        status: { code: 1, name: 'RUNNING' },
        startTime: new Date(now - 95 * 60_000),
        typedSearchAttributes: new TypedSearchAttributes([
          { key: Repo, value: 'acme/app' },
          { key: PullRequest, value: 7 },
          { key: Phase, value: 'review' },
        ]),
      },
      now,
    );
    const promised: Array<[string, keyof typeof row]> = [
      ['phase', 'phase'],
      ['repository', 'repo'],
      ['PR', 'pullRequest'],
      ['age', 'ageMinutes'],
    ];
    for (const [words, field] of promised) {
      expect(fleetStatusTool.description).toContain(words);
      expect(row[field]).toBeDefined();
    }
    expect(row).toEqual({
      unitId: 'unit:acme/app#7',
      status: 'RUNNING',
      repo: 'acme/app',
      pullRequest: 7,
      phase: 'review',
      startedAt: '2026-05-01T10:25:00.000Z',
      ageMinutes: 95,
    });
  });
});
