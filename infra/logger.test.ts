import { PassThrough } from 'node:stream';
import { runInNewContext } from 'node:vm';
import { createLogger, temporalLogger } from './logger';

/** The JSON lines a logger wrote. */
function capture() {
  const destination = new PassThrough();
  let text = '';
  destination.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const logger = createLogger({ format: 'json', destination });
  return {
    logger,
    lines: () =>
      text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>),
  };
}

describe('the logger', () => {
  it('writes an error out wherever it is passed: type, message, stack and cause, never {}', () => {
    const { logger, lines } = capture();
    const cause = new RangeError('the inner reason');
    logger.warn({ error: new Error('outer', { cause }) }, 'one');
    logger.warn({ err: new TypeError('as err') }, 'two');
    logger.warn({ details: { failure: new Error('nested') } }, 'three');
    const [one, two, three] = lines();
    expect(one.error).toMatchObject({
      type: 'Error',
      message: 'outer',
      stack: expect.stringContaining('Error: outer'),
      cause: { type: 'RangeError', message: 'the inner reason' },
    });
    expect(two.err).toMatchObject({ type: 'TypeError', message: 'as err', stack: expect.any(String) });
    expect(three.details.failure).toMatchObject({ type: 'Error', message: 'nested' });
  });

  it("serialises an error from the workflow sandbox's realm, and says which workflow's task failed and why", () => {
    const { logger, lines } = capture();
    const foreign = runInNewContext('new TypeError("Cannot read properties of undefined (reading \'surface\')")') as Error;
    expect(foreign instanceof Error).toBe(false);
    temporalLogger(logger).warn('Workflow failed', { error: foreign, workflowId: 'thread:cli:1', workflowType: 'threadWorkflow' });
    const failed = Object.assign(runInNewContext('new Error("the plan is not sound")') as Error, {
      name: 'ApplicationFailure',
      type: 'plan_invalid',
    });
    temporalLogger(logger).warn('Workflow failed', { error: failed, workflowId: 'plan:a/b:x', workflowType: 'planWorkflow' });
    const [task, workflow] = lines();
    expect(task.msg).toBe(
      "Workflow task failed (Temporal retries it until a fix is deployed; `switchboard stuck` lists it): threadWorkflow thread:cli:1: TypeError: Cannot read properties of undefined (reading 'surface')",
    );
    expect(task.error).toMatchObject({ type: 'TypeError', message: "Cannot read properties of undefined (reading 'surface')" });
    expect(workflow.msg).toBe('Workflow failed: planWorkflow plan:a/b:x: the plan is not sound');
    expect(workflow.error).toMatchObject({ type: 'ApplicationFailure', code: 'plan_invalid' });
  });
});
