import { UndecodablePayload } from './undecodable-payload';
import {
  MAX_STEER_CHARS,
  MESSAGE_INPUTS,
  PLAN_UNIT_UPDATE_SHAPE,
  STEER_INPUT_SHAPE,
  STOP_INPUT_SHAPE,
  THREAD_MESSAGE_SHAPE,
  UNIT_PR_EVENT_SHAPE,
} from '.';
import { inputProblem, problemWith } from './shape';

const message = { messageId: 'm-1', text: 'hello', requester: { id: 'ana', surface: 'cli' } };

describe('message input shapes', () => {
  it('takes a well-formed message, and ignores fields the contract does not name', () => {
    expect(problemWith(THREAD_MESSAGE_SHAPE, message)).toBeUndefined();
    expect(problemWith(THREAD_MESSAGE_SHAPE, { ...message, sender: { id: 'x' }, replyTarget: { kind: 'cli' } })).toBeUndefined();
  });

  it('names the field that is missing or wrong, at any depth', () => {
    const { requester: _requester, ...noRequester } = message;
    expect(problemWith(THREAD_MESSAGE_SHAPE, noRequester)).toBe('`requester` is missing');
    expect(problemWith(THREAD_MESSAGE_SHAPE, { ...message, requester: { id: 'ana', surface: 'fax' } })).toBe(
      '`requester.surface` must be one of slack, github, http, mcp, cli (got "fax")',
    );
    expect(problemWith(THREAD_MESSAGE_SHAPE, { ...message, messageId: '  ' })).toBe('`messageId` must not be empty');
    expect(problemWith(THREAD_MESSAGE_SHAPE, { ...message, replyTarget: { kind: 'github', repo: 'a/b', pullRequest: 0 } })).toBe(
      '`replyTarget.pullRequest` must be at least 1 (got 0)',
    );
    expect(problemWith(THREAD_MESSAGE_SHAPE, { ...message, replyTarget: { kind: 'email' } })).toBe(
      '`replyTarget.kind` must be one of slack, github, api, cli (got "email")',
    );
    expect(
      problemWith(THREAD_MESSAGE_SHAPE, { ...message, requester: { ...message.requester, grant: { agents: ['a', 7], rule: 'r' } } }),
    ).toBe('`requester.grant.agents[1]` must be a string (got 7)');
    expect(problemWith(UNIT_PR_EVENT_SHAPE, { repo: 'a/b', number: 1.5, kind: 'opened' })).toBe(
      '`number` must be a whole number (got 1.5)',
    );
  });

  it('bounds a steer’s text, saying how long it was and what is taken; unbounded for histories from before the bound', () => {
    expect(problemWith(STEER_INPUT_SHAPE, { text: 'x'.repeat(MAX_STEER_CHARS) })).toBeUndefined();
    expect(inputProblem(STEER_INPUT_SHAPE, [{ text: 'x'.repeat(200_000) }])).toBe(
      `\`text\` is 200000 characters long, and at most ${MAX_STEER_CHARS} are taken: say it in fewer words`,
    );
    expect(inputProblem(STEER_INPUT_SHAPE, [{ text: 'x'.repeat(200_000) }], { bounded: false })).toBeUndefined();
  });

  it('checks the fields a tagged input needs for its tag', () => {
    const base = { key: 'api', unitId: 'unit:a/b:x-api' };
    expect(problemWith(PLAN_UNIT_UPDATE_SHAPE, { ...base, status: 'coding' })).toBeUndefined();
    expect(problemWith(PLAN_UNIT_UPDATE_SHAPE, { ...base, status: 'settled' })).toBe('`outcome` is missing');
    expect(problemWith(PLAN_UNIT_UPDATE_SHAPE, { ...base, status: 'settled', outcome: 'won' })).toMatch(/^`outcome` must be one of merged/);
    expect(problemWith(PLAN_UNIT_UPDATE_SHAPE, { ...base, status: 'done' })).toMatch(/^`status` must be one of coding, review/);
  });

  it('refuses a whole input that is not one JSON object, and takes none only where the message allows it', () => {
    expect(inputProblem(STOP_INPUT_SHAPE, [], { absentOk: true })).toBeUndefined();
    expect(inputProblem(STOP_INPUT_SHAPE, [null], { absentOk: true })).toBeUndefined();
    expect(inputProblem(THREAD_MESSAGE_SHAPE, [])).toBe('the input is missing');
    expect(inputProblem(THREAD_MESSAGE_SHAPE, [message, message])).toBe('the message takes one input (got 2)');
    expect(inputProblem(STOP_INPUT_SHAPE, ['stop'], { absentOk: true })).toBe('the input must be an object (got "stop")');
    expect(inputProblem(STOP_INPUT_SHAPE, [[{}]], { absentOk: true })).toBe('the input must be an object (got a list)');
    expect(inputProblem(STOP_INPUT_SHAPE, [new Uint8Array([1])], { absentOk: true })).toBe('the input must be an object (got bytes)');
    expect(inputProblem(STOP_INPUT_SHAPE, [new UndecodablePayload('foo/bar', 'Unknown encoding: foo/bar')], { absentOk: true })).toBe(
      'the input must be an object (got a payload that could not be decoded: encoding foo/bar, Unknown encoding: foo/bar)',
    );
  });

  it('lists a shape for every signal and update of every workflow type, each name once', () => {
    for (const [type, entries] of Object.entries(MESSAGE_INPUTS)) {
      const names = entries.map((entry) => `${entry.kind}:${entry.name}`);
      expect({ type, names: new Set(names).size }).toEqual({ type, names: names.length });
    }
    expect(Object.keys(MESSAGE_INPUTS).sort()).toEqual([
      'agentRunWorkflow',
      'boardWorkflow',
      'planWorkflow',
      'resendWorkflow',
      'shipUnitWorkflow',
      'spendLedgerWorkflow',
      'threadWorkflow',
    ]);
  });
});
