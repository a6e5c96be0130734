import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createModelActivities } from './index';
import { failureOf } from './test-support';
import type { ChatMessage, ModelTurnInput, ModelTurnResult } from '../../workflows/contracts/model';

const repoRoot = resolve(__dirname, '../..');

function turnInput(model: string, messages: ChatMessage[], tools: string[] = []): ModelTurnInput {
  return {
    model,
    system: 'system prompt',
    messages,
    tools: tools.map((name) => ({ name, description: name, inputSchema: {} })),
    maxTokens: 1000,
    runId: 'run:t:1',
    turn: 0,
  };
}

describe('scripted provider', () => {
  let dir: string;
  const activities = () => createModelActivities({ baseDir: '/nonexistent', scriptedDirs: { t: dir }, heartbeatIntervalMs: 20 });
  const script = async (name: string, content: string) => {
    await writeFile(join(dir, name), content);
    return `scripted:t/${name}`;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scripted-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('plays the examples/hello.yaml demo: tool calls first, then the bash output echoed', async () => {
    const models = createModelActivities({ baseDir: repoRoot });
    const first = await models.modelTurn(
      turnInput('scripted:examples/hello.yaml', [{ role: 'user', text: 'say hello' }], ['bash', 'update_status']),
    );
    expect(first.toolCalls).toEqual([
      { id: 'call_0_0', name: 'update_status', input: { summary: 'Saying hello from the sandbox' } },
      { id: 'call_0_1', name: 'bash', input: { command: 'echo hello from the sandbox && uname -s' } },
    ]);
    expect(first.stopReason).toBe('tool_use');
    const second = await models.modelTurn(
      turnInput(
        'scripted:examples/hello.yaml',
        [
          { role: 'user', text: 'say hello' },
          { role: 'assistant', text: first.text, toolCalls: first.toolCalls },
          {
            role: 'tool',
            results: [
              { callId: 'call_0_0', name: 'update_status', content: 'updated' },
              { callId: 'call_0_1', name: 'bash', content: 'exit 0\nhello from the sandbox\nLinux' },
            ],
          },
        ],
        ['bash', 'update_status'],
      ),
    );
    expect(second).toMatchObject({
      text: 'The sandbox answered:\nexit 0\nhello from the sandbox\nLinux',
      toolCalls: [],
      stopReason: 'end_turn',
    });
  });

  it('lets a script adapt to the tools the run holds (hello.yaml under an agent without a shell)', async () => {
    const models = createModelActivities({ baseDir: repoRoot });
    const first = await models.modelTurn(
      turnInput('scripted:examples/hello.yaml', [{ role: 'user', text: 'say hello' }], ['update_status']),
    );
    expect(first.toolCalls).toEqual([{ id: 'call_0_0', name: 'update_status', input: { summary: 'Saying hello' } }]);
    const second = await models.modelTurn(
      turnInput(
        'scripted:examples/hello.yaml',
        [
          { role: 'user', text: 'say hello' },
          { role: 'assistant', text: first.text, toolCalls: first.toolCalls },
          { role: 'tool', results: [{ callId: 'call_0_0', name: 'update_status', content: 'updated' }] },
        ],
        ['update_status'],
      ),
    );
    expect(second.text).toBe('Hello from Switchboard. You asked: say hello');
  });

  it('chooses the turn by the number of assistant messages, so a retry plays the same turn', async () => {
    const model = await script(
      'two.json',
      JSON.stringify([{ text: 'one' }, { text: 'two', toolCalls: [{ name: 'bash', input: { command: 'ls' }, id: 'mine' }] }]),
    );
    const history: ChatMessage[] = [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: 'one', toolCalls: [] },
      { role: 'user', text: 'more' },
    ];
    const once = await activities().modelTurn(turnInput(model, history));
    const again = await activities().modelTurn(turnInput(model, history));
    expect(once).toEqual(again);
    expect(once.text).toBe('two');
    expect(once.toolCalls).toEqual([{ id: 'mine', name: 'bash', input: { command: 'ls' } }]);
  });

  it('plays the steer example: a steer naming v2 changes the next turn', async () => {
    const models = createModelActivities({ baseDir: repoRoot });
    const before: ChatMessage[] = [
      { role: 'user', text: 'update the client' },
      { role: 'assistant', text: 'Working', toolCalls: [{ id: 'call_0_0', name: 'bash', input: { command: 'sleep 2' } }] },
      { role: 'tool', results: [{ callId: 'call_0_0', name: 'bash', content: 'exit 0' }] },
    ];
    const unsteered = await models.modelTurn(turnInput('scripted:examples/steer.yaml', before));
    expect(unsteered.text).toBe('Staying on v1.');
    const steered = await models.modelTurn(
      turnInput('scripted:examples/steer.yaml', [...before, { role: 'user', text: 'Use the V2 API' }]),
    );
    expect(steered.text).toBe('Switching to the v2 API as asked.');
  });

  it('lets a script see what the system prompt holds (a repository’s instructions)', async () => {
    const model = await script(
      'system.yaml',
      'turns:\n  - alternatives:\n      - when: { systemIncludes: "money is kept in cents" }\n        text: "In cents, as AGENTS.md says."\n      - text: "No instructions."\n',
    );
    const plain = await activities().modelTurn(turnInput(model, [{ role: 'user', text: 'hi' }]));
    expect(plain.text).toBe('No instructions.');
    const told = await activities().modelTurn({
      ...turnInput(model, [{ role: 'user', text: 'hi' }]),
      system: 'system prompt\n\n## Repository instructions\n### AGENTS.md\nMoney is kept in cents.',
    });
    expect(told.text).toBe('In cents, as AGENTS.md says.');
  });

  it('fills templates in text and tool inputs', async () => {
    const model = await script(
      'echo.yaml',
      'turns:\n  - text: "turn {{turn}} of {{runId}}: you said {{lastUser}}"\n    toolCalls:\n      - name: write_file\n        input: { path: notes.txt, content: "{{ lastUser }}" }\n',
    );
    const result = await activities().modelTurn(turnInput(model, [{ role: 'user', text: 'hi there' }]));
    expect(result.text).toBe('turn 0 of run:t:1: you said hi there');
    expect(result.toolCalls[0]?.input).toEqual({ path: 'notes.txt', content: 'hi there' });
  });

  it('reports its usage override, else a deterministic estimate', async () => {
    const model = await script('usage.yaml', '- text: big\n  usage: { inputTokens: 90000, outputTokens: 5000 }\n- text: small\n');
    const big = await activities().modelTurn(turnInput(model, [{ role: 'user', text: 'go' }]));
    expect(big.usage).toEqual({ inputTokens: 90000, outputTokens: 5000 });
    const history: ChatMessage[] = [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: 'big', toolCalls: [] },
    ];
    const small = await activities().modelTurn(turnInput(model, history));
    expect(small.usage.inputTokens).toBeGreaterThan(0);
    expect(small.usage).toEqual((await activities().modelTurn(turnInput(model, history))).usage);
  });

  it("reports max_tokens when the turn's output reaches the call's cap, as a truncated answer does", async () => {
    const model = await script(
      'cap.yaml',
      '- text: cut off mid\n  usage: { inputTokens: 10, outputTokens: 1000 }\n- text: fine\n  usage: { inputTokens: 10, outputTokens: 999 }\n',
    );
    expect(await activities().modelTurn(turnInput(model, [{ role: 'user', text: 'go' }]))).toMatchObject({ stopReason: 'max_tokens' });
    const history: ChatMessage[] = [
      { role: 'user', text: 'go' },
      { role: 'assistant', text: 'cut off mid', toolCalls: [] },
    ];
    expect(await activities().modelTurn(turnInput(model, history))).toMatchObject({ stopReason: 'end_turn' });
  });

  it('ends with a final text when the script runs out of turns', async () => {
    const model = await script('short.yaml', '- text: only\n');
    const result = await activities().modelTurn(
      turnInput(model, [
        { role: 'user', text: 'go' },
        { role: 'assistant', text: 'only', toolCalls: [] },
        { role: 'user', text: 'and?' },
      ]),
    );
    expect(result).toMatchObject({ toolCalls: [], stopReason: 'end_turn' });
    expect(result.text).toContain('has no turn 2 (it has 1)');
  });

  it.each([
    ['missing.yaml', null, 'not found'],
    ['broken.yaml', 'turns: [text: "unclosed', 'is not valid YAML'],
    ['wrong.yaml', '- toolCalls: [{ input: {} }]\n', '0.toolCalls.0.name'],
    ['nofallback.yaml', '- alternatives:\n    - when: { lastUserIncludes: v2 }\n      text: v2\n', 'needs a fallback'],
    ['placeholder.yaml', '- text: "{{nope}}"\n', 'unknown placeholder'],
  ])('refuses a bad script (%s) as non-retryable, naming the file and the problem', async (name, content, problem) => {
    const model = content === null ? `scripted:t/${name}` : await script(name, content);
    const failure = await failureOf(activities().modelTurn(turnInput(model, [{ role: 'user', text: 'go' }])));
    expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_script_invalid']);
    expect(failure.message).toContain(join(dir, name));
    expect(failure.message).toContain(problem);
  });

  describe('confinement to the scripted directories', () => {
    const SECRET = 'hunter2-secret-content';
    let outside: string;
    // Scripts live in <dir>/scripts (named `s`); <dir>/private and the temp root are outside.
    const confined = () => createModelActivities({ baseDir: dir, scriptedDirs: { s: 'scripts' } });
    const refusal = async (model: string) => failureOf(confined().modelTurn(turnInput(model, [{ role: 'user', text: 'go' }])));

    beforeEach(async () => {
      outside = await mkdtemp(join(tmpdir(), 'scripted-outside-'));
      await mkdir(join(dir, 'scripts'));
      await mkdir(join(dir, 'private'));
      await writeFile(join(dir, 'scripts', 'ok.yaml'), '- text: inside\n');
      await writeFile(join(dir, 'private', 'secret.yaml'), `- text: ${SECRET}\n`);
      await writeFile(join(outside, 'secret.yaml'), `- text: ${SECRET}\n`);
    });
    afterEach(async () => {
      await rm(outside, { recursive: true, force: true });
    });

    it('plays a script inside, named relative to the base directory', async () => {
      expect((await confined().modelTurn(turnInput('scripted:s/ok.yaml', [{ role: 'user', text: 'go' }]))).text).toBe('inside');
      expect((await confined().modelTurn(turnInput('scripted:./s//ok.yaml', [{ role: 'user', text: 'go' }]))).text).toBe('inside');
    });

    it.each([
      ['an absolute path, even to a file inside', () => `scripted:${join(dir, 'scripts', 'ok.yaml')}`, 'absolute path'],
      ['an absolute path outside', () => `scripted:${join(outside, 'secret.yaml')}`, 'absolute path'],
      ['a climb with ..', () => 'scripted:s/../private/secret.yaml', 'climbs out'],
      ['a directory that is not a scripted one', () => 'scripted:private/secret.yaml', 'not inside a scripted directory'],
      ['the base directory by its path', () => 'scripted:scripts/ok.yaml', 'not inside a scripted directory'],
      ['a name without a file', () => 'scripted:s', 'not inside a scripted directory'],
      ['an inherited property as a name', () => 'scripted:constructor/x.yaml', 'not inside a scripted directory'],
      ['/etc/passwd', () => 'scripted:/etc/passwd', 'absolute path'],
    ])('refuses %s without reading it', async (_what, model, why) => {
      const failure = await refusal(model());
      expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_script_refused']);
      expect(failure.message).toContain(why);
      expect(failure.message).not.toContain(SECRET);
    });

    it('refuses a symbolic link that leads out, whatever the link is called', async () => {
      await symlink(join(outside, 'secret.yaml'), join(dir, 'scripts', 'link.yaml'));
      await symlink(outside, join(dir, 'scripts', 'linked-dir'));
      for (const model of ['scripted:s/link.yaml', 'scripted:s/linked-dir/secret.yaml']) {
        const failure = await refusal(model);
        expect(failure.type).toBe('model_script_refused');
        expect(failure.message).toContain('symbolic link');
        expect(failure.message).not.toContain(SECRET);
      }
    });

    it('never quotes the file in a parse or schema error', async () => {
      await writeFile(join(dir, 'scripts', 'yaml.yaml'), `${SECRET}: [unclosed\n`);
      await writeFile(join(dir, 'scripts', 'json.json'), `${SECRET}`);
      await writeFile(join(dir, 'scripts', 'keys.yaml'), `- ${SECRET}: 1\n`);
      await mkdir(join(dir, 'scripts', 'folder.yaml'));
      const expected: Array<[string, RegExp]> = [
        ['yaml.yaml', /is not valid YAML \([A-Z_]+ at line \d+, column \d+\)$/],
        ['json.json', /is not valid JSON$/],
        ['keys.yaml', /0: unknown key/],
        ['folder.yaml', /not a regular file$/],
      ];
      for (const [name, pattern] of expected) {
        const failure = await refusal(`scripted:s/${name}`);
        expect([failure.type, failure.message]).toEqual(['model_script_invalid', expect.stringMatching(pattern)]);
        expect(failure.message).not.toContain(SECRET);
      }
    });

    it('reads nothing when no scripted directory is configured', async () => {
      const none = createModelActivities({ baseDir: dir, scriptedDirs: {} });
      const failure = await failureOf(none.modelTurn(turnInput('scripted:s/ok.yaml', [{ role: 'user', text: 'go' }])));
      expect(failure.type).toBe('model_script_refused');
    });
  });

  it('refuses a model string without a known provider as non-retryable', async () => {
    const failure = await failureOf(activities().modelTurn(turnInput('llama3', [])));
    expect([failure.nonRetryable, failure.type]).toEqual([true, 'model_unknown']);
    expect(failure.message).toContain("'<provider>:<model id>'");
  });

  it('uses the default model when the input names none', async () => {
    const model = await script('default.yaml', '- text: from the default\n');
    const models = createModelActivities({ baseDir: dir, scriptedDirs: { t: '.' }, defaultModel: model });
    expect((await models.modelTurn(turnInput('', [{ role: 'user', text: 'go' }]))).text).toBe('from the default');
  });

  it('heartbeats while a slow turn waits, inside a Temporal activity context', async () => {
    const model = await script('slow.yaml', '- text: slow answer\n  delayMs: 200\n');
    const environment = new MockActivityEnvironment();
    let heartbeats = 0;
    environment.on('heartbeat', () => (heartbeats += 1));
    const result = await environment.run<[ModelTurnInput], ModelTurnResult, (input: ModelTurnInput) => Promise<ModelTurnResult>>(
      activities().modelTurn,
      turnInput(model, [{ role: 'user', text: 'go' }]),
    );
    expect(result.text).toBe('slow answer');
    expect(heartbeats).toBeGreaterThanOrEqual(3);
  });

  it('stops a slow turn promptly when the activity is cancelled', async () => {
    const model = await script('slower.yaml', '- text: never\n  delayMs: 30000\n');
    const environment = new MockActivityEnvironment();
    const started = Date.now();
    const pending = environment.run(activities().modelTurn, turnInput(model, [{ role: 'user', text: 'go' }]));
    setTimeout(() => environment.cancel(), 100);
    await expect(pending).rejects.toBeInstanceOf(CancelledFailure);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
