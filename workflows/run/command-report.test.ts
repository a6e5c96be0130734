import type { ChatMessage } from '../contracts/model';
import { commandReport, PASSED_LINE_MAX } from './command-report';

const ran = (command: string, content: string, isError: boolean): ChatMessage[] => [
  { role: 'user', text: 'run the tests' },
  { role: 'assistant', text: 'Running.', toolCalls: [{ id: 'b1', name: 'bash', input: { command } }] },
  { role: 'tool', results: [{ callId: 'b1', name: 'bash', content, ...(isError ? { isError: true } : {}) }] },
];

describe("a command runner's report (001's task agent)", () => {
  it('is one line when the command passed, however much it printed', () => {
    const output = `exit code 0\n${'ok 1 - a test\n'.repeat(500)}`;
    expect(commandReport(ran('npm test', output, false), 'npm test: 500 tests passed.\nThe details follow…')).toBe(
      'npm test: 500 tests passed.',
    );
    expect(commandReport(ran('npm test', output, false), '')).toBe('`npm test` passed.');
    expect(commandReport(ran('npm test', output, false), 'x'.repeat(500))).toHaveLength(PASSED_LINE_MAX);
  });

  it("is the failing command's whole result when it failed, whatever the model wrote", () => {
    const output = `exit code 1\n${'FAIL src/a.test.ts\n  expected 2, got 3\n'.repeat(20)}`;
    expect(commandReport(ran('npm test', output, true), 'It failed, I think it is fine.')).toBe(`\`npm test\` failed:\n${output}`);
  });

  it('says so when no command ran', () => {
    expect(commandReport([{ role: 'user', text: 'x' }], '')).toBe('No command was run.');
  });
});
