import { parseShipTarget } from './ship';

describe('parseShipTarget', () => {
  it('reads an exact pull request', () => {
    expect(parseShipTarget('acme/app#7')).toEqual({ kind: 'pull_request', repo: 'acme/app', pullRequest: 7 });
    expect(parseShipTarget(' acme/my.app#12 ', 'ignored/repo')).toEqual({ kind: 'pull_request', repo: 'acme/my.app', pullRequest: 12 });
  });

  it('reads a request with its repository', () => {
    expect(parseShipTarget('Fix #12 in the parser', 'acme/app')).toEqual({
      kind: 'task',
      repo: 'acme/app',
      request: 'Fix #12 in the parser',
    });
  });

  it.each([
    ['acme/app#x', undefined, "not a pull request reference: 'acme/app#x' (expected owner/name#<number>, e.g. acme/app#7)"],
    ['acme/app#0', undefined, "not a pull request reference: 'acme/app#0'"],
    ['acme/app#7a', undefined, "not a pull request reference: 'acme/app#7a'"],
    ['acme/app#1e300', undefined, "not a pull request reference: 'acme/app#1e300'"],
    ['acme/app#2.5', undefined, "not a pull request reference: 'acme/app#2.5'"],
    ['acme/app#-1', undefined, "not a pull request reference: 'acme/app#-1'"],
    ['acme/app#99999999999999999999', undefined, 'not a pull request reference'],
    [`acme/${'x'.repeat(1197)}#7`, undefined, 'not a pull request reference'],
    ['Add a changelog', `acme/${'x'.repeat(1197)}`, 'not a repository'],
    ['Add a changelog', undefined, 'a request needs its repository: --repo owner/name'],
    ['Add a changelog', 'acme', "not a repository: 'acme' (expected owner/name)"],
    ['  ', 'acme/app', 'say what to ship'],
  ])('refuses %j (repo %j) with one line', (target, repo, message) => {
    expect(() => parseShipTarget(target, repo)).toThrow(message);
  });
});
