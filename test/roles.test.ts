import { startRunKit, type RunKit } from './helpers/run-kit';

jest.setTimeout(180_000);

/**
 * The task-tool entries of seeds 001 and 002 as runs, on the real product and sandbox: `debug`
 * reads a symptom that only a tool result of its parent holds; the `task` command runner answers
 * one line for a passing command and the whole output of a failing one (decided by code);
 * `general-purpose` holds its parent's whole toolset; `rubber-duck` cannot write a file.
 */
describe('roles and catalog entries reached through task', () => {
  let kit: RunKit;
  beforeAll(async () => {
    // rubber-duck runs on another model family than its parent's: here, a script of its own (each script is a family).
    kit = await startRunKit('roles', { agents: { entries: { 'rubber-duck': { complementary: ['scripted:kit/rubber-duck.yaml'] } } } });
  });
  afterAll(async () => kit?.close());

  it('debug, task, general-purpose and rubber-duck each do what their seed names', async () => {
    const symptom = 'SIGSEGV in parse_header at frame 0x2f';
    // The debug child starts from the parent's two assistant turns: its own script begins at its third.
    const debug = kit.script('debug', [
      { text: 'inherited' },
      { text: 'inherited' },
      { text: 'Diagnosis from what I inherited: {{lastToolResult:bash}}' },
    ]);
    const passing = kit.script('task-pass', [
      { text: 'Running.', toolCalls: [{ name: 'bash', input: { command: 'for i in $(seq 1 300); do echo "ok $i - a test"; done' } }] },
      { text: 'seq: 300 tests passed.\nAnd here is a long analysis nobody asked for.' },
    ]);
    const failing = kit.script('task-fail', [
      { text: 'Running.', toolCalls: [{ name: 'bash', input: { command: 'echo "FAIL src/a.test.ts: expected 2, got 3"; exit 3' } }] },
      { text: 'It failed, probably nothing.' },
    ]);
    const broad = kit.script('general-purpose', [{ text: 'I hold: {{lastUser}}' }]);
    const duck = kit.script('rubber-duck', [
      { text: 'Let me just fix it.', toolCalls: [{ name: 'write_file', input: { path: 'fix.txt', content: 'x' } }] },
      { text: 'Critique: {{lastToolResult:write_file}}' },
    ]);
    const task = (agent_type: string, name: string, model: string) => ({
      name: 'task',
      input: { agent_type, name, prompt: `do the ${name} part`, model, mode: 'sync' },
    });
    const parent = kit.script('parent', [
      { text: 'Running the tests.', toolCalls: [{ name: 'bash', input: { command: `echo "${symptom}"; exit 139` } }] },
      { text: 'Asking debug.', toolCalls: [task('debug', 'why', debug)] },
      {
        text: 'Fanning out.',
        toolCalls: [
          task('task', 'pass', passing),
          task('task', 'fail', failing),
          task('general-purpose', 'broad', broad),
          { name: 'task', input: { agent_type: 'rubber-duck', name: 'duck', prompt: 'do the duck part', mode: 'sync' } },
        ],
      },
      { text: 'Debug said: {{lastToolResult:task}}' },
    ]);
    const { runId } = await kit.start('the parser crashes; find out why', { agent: 'coding', model: parent });
    const record = await kit.result(runId);
    expect(record.outcome).toBe('completed');
    expect(record.children.map((child) => [child.agent, child.outcome])).toEqual([
      ['debug', 'completed'],
      ['task', 'completed'],
      ['task', 'completed'],
      ['general-purpose', 'completed'],
      ['rubber-duck', 'completed'],
    ]);
    const child = (index: number) => kit.result(record.children[index].workflowId);

    // debug (002): the symptom was only ever in the parent's bash result, and it reached the child.
    const diagnosis = await child(0);
    expect(diagnosis.finalText).toContain(`Diagnosis from what I inherited: exit code 139\n${symptom}`);
    expect(diagnosis.profile.tools).toContain('task');

    // task (001): one line on success, the failing command's whole output on failure, whatever the model said.
    expect((await child(1)).finalText).toBe('seq: 300 tests passed.');
    expect((await child(2)).finalText).toBe(
      '`echo "FAIL src/a.test.ts: expected 2, got 3"; exit 3` failed:\nexit code 3\nFAIL src/a.test.ts: expected 2, got 3\n',
    );

    // general-purpose (001): the parent's whole toolset, task included.
    const broadRecord = await child(3);
    expect(broadRecord.profile.tools).toEqual(record.profile.tools);

    // rubber-duck (001): a critic, with no tool that writes a file.
    const duckRecord = await child(4);
    expect(duckRecord.profile.model).toEqual({ value: duck, chosenBy: 'entry' });
    expect(duckRecord.profile.tools).not.toContain('write_file');
    expect(duckRecord.toolCalls).toEqual([expect.objectContaining({ name: 'write_file', ok: false })]);
    expect(duckRecord.finalText).toMatch(/Critique: The tool "write_file" is not available to this run \(agent rubber-duck\)/);
  });
});
