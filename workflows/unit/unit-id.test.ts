import { unitBranchName } from './branch';
import { pullRequestUnitId, taskUnitId, unitSummary } from './unit-id';

describe('unit ids and branches', () => {
  it('names one unit per PR and per request', () => {
    expect(pullRequestUnitId('acme/app', 42)).toBe('unit:acme/app#42');
    expect(taskUnitId('acme/app', 'Fix the login redirect, please!')).toBe('unit:acme/app:fix-the-login-redirect-please');
    expect(taskUnitId('acme/app', 'Fix the login redirect, please!')).toBe(taskUnitId('acme/app', 'fix the LOGIN redirect please'));
    expect(taskUnitId('acme/app', '!!!')).toBe('unit:acme/app:change');
  });

  it('derives a safe, stable branch from the unit id', () => {
    expect(unitBranchName('unit:acme/app#42')).toBe('switchboard/acme/app-42');
    expect(unitBranchName('unit:acme/app:fix-login')).toBe('switchboard/acme/app-fix-login');
    expect(unitBranchName('unit:../../etc')).toBe('switchboard/etc');
  });

  it('summarises a unit in one line: an exact PR with no request has no stray colon', () => {
    expect(unitSummary({ repo: 'acme/app', pullRequest: 7 })).toBe('ship acme/app#7');
    expect(unitSummary({ repo: 'acme/app', pullRequest: 7, request: '  ' })).toBe('ship acme/app#7');
    expect(unitSummary({ repo: 'acme/app', request: 'Add a greeting' })).toBe('ship acme/app: Add a greeting');
  });
});
