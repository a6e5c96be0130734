import { type Directives, parseDirectives } from './directives';

describe('parseDirectives', () => {
  const table: Array<[string, Directives, string, string[]]> = [
    ['agent:explore budget:30 run the suite', { agent: 'explore', budgetMinutes: 30 }, 'run the suite', []],
    ['agent:explore in acme/api: time the build', { agent: 'explore', repo: 'acme/api' }, 'time the build', []],
    [
      'in acme/api: agent:Explore effort:HIGH model:claude-opus-4-1 go',
      { agent: 'explore', repo: 'acme/api', effort: 'high', model: 'claude-opus-4-1' },
      'go',
      [],
    ],
    ['budget:200 check it', { budgetMinutes: 200 }, 'check it', []],
    ['budget:5 quick', { budgetMinutes: 5 }, 'quick', []],
    ['budget:1 run it', {}, 'budget:1 run it', ['budget:1']],
    ['budget:4 run it', {}, 'budget:4 run it', ['budget:4']],
    ['budget:abc run it', {}, 'budget:abc run it', ['budget:abc']],
    ['budget:99999 run it', {}, 'budget:99999 run it', ['budget:99999']],
    ['effort:max do it', {}, 'effort:max do it', ['effort:max']],
    ['agent:Bad_Name hi', {}, 'agent:Bad_Name hi', ['agent:Bad_Name']],
    ['agent: hi', {}, 'agent: hi', ['agent:']],
    ['agent:explore agent:coding hi', { agent: 'explore' }, 'agent:coding hi', ['agent:coding']],
    ['agent:explore budget:1 model:m1 hi', { agent: 'explore', model: 'm1' }, 'budget:1 hi', ['budget:1']],
    ['what does agent:explore do?', {}, 'what does agent:explore do?', []],
    ['in the repo: fix it', {}, 'in the repo: fix it', []],
    ['in acme/api:fix', {}, 'in acme/api:fix', []],
    [`in acme/${'x'.repeat(101)}: fix`, {}, `in acme/${'x'.repeat(101)}: fix`, [`in acme/${'x'.repeat(101)}:`]],
    ['in acme/..: fix', {}, 'in acme/..: fix', ['in acme/..:']],
    ['agent:unknown-thing hello', { agent: 'unknown-thing' }, 'hello', []],
    ['  plain question  ', {}, 'plain question', []],
    ['agent:explore', { agent: 'explore' }, '', []],
  ];
  it.each(table)('%j', (message, directives, text, ignored) => {
    const parsed = parseDirectives(message);
    expect(parsed.directives).toEqual(directives);
    expect(parsed.text).toBe(text);
    expect(parsed.ignored.map((i) => i.token)).toEqual(ignored);
  });

  it.each([
    ['budget:1 x', /below the 5-minute minimum/],
    ['budget:x1 x', /whole number/],
    ['budget:2000 x', /above the 1440-minute maximum/],
    ['effort:max x', /low, medium, high/],
    ['agent:explore agent:coding x', /repeated/],
  ])('%j is text, with the reason', (message, reason) => {
    expect(parseDirectives(message).ignored[0].reason).toMatch(reason);
  });
});
