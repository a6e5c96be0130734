import type { GitHubWriteActivities } from '../activity-proxies';
import { CallLog, FakeClock, exploreRunInput } from '../test-support';
import { RunState } from './run-state';
import { listingWorkflow, RUN_LISTS_UNCERTAIN_WRITES, RunWrites } from './run-writes';

/** The run's writes over fakes: every GitHub write and the card answer `answer`; `marker` is what the history says of the patch. */
function setup(options: { marker: boolean; answer: 'confirmed' | 'unconfirmed'; runId?: string }) {
  const log = new CallLog();
  const asked: string[] = [];
  const answer = (input: { effectKey: string }) => ({ status: options.answer, effectKey: input.effectKey, reason: 'lost' });
  const githubWrites = {
    postComment: log.fn('postComment', answer),
    updateIssue: log.fn('updateIssue', answer),
  } as unknown as GitHubWriteActivities;
  const state = new RunState(exploreRunInput({ threadId: 'thread:slack:C1:1.2', requester: { id: 'ada', surface: 'slack' } }), 0);
  const writes = new RunWrites({
    runId: options.runId ?? 'run:thread:slack:C1:1.2:1',
    input: state.input,
    state,
    clock: new FakeClock(),
    proxies: {
      githubWrites,
      status: { statusCard: log.fn('statusCard', answer), deliverReply: log.fn('deliverReply', () => ({ status: 'confirmed' as const })) },
    },
    patched: (id) => {
      asked.push(id);
      return options.marker;
    },
    nonCancellable: (work) => work(),
    onChange: () => undefined,
  });
  return { log, asked, state, writes, githubWrites };
}

const comment = { repo: 'acme/app', number: 7, body: 'Found it.', effectKey: 'run:thread:slack:C1:1.2:1/github_comment/1.0' };

describe('RunWrites', () => {
  it('lists an unconfirmed comment of the run with its text and says so in the conversation under a key of its own', async () => {
    const { writes, log, asked, state } = setup({ marker: true, answer: 'unconfirmed' });
    expect(asked).toEqual([RUN_LISTS_UNCERTAIN_WRITES]);
    expect(writes.listsUncertain).toBe(true);
    await writes.github.postComment(comment);
    expect(state.uncertain).toEqual([expect.objectContaining({ kind: 'comment', effectKey: comment.effectKey, text: 'Found it.' })]);
    expect(log.inputs('deliverReply')).toEqual([
      expect.objectContaining({ effectKey: `${comment.effectKey}/notice`, replyTarget: { kind: 'cli' } }),
    ]);
  });

  it('passes writes that are not at-most-once straight to the activity', async () => {
    const { writes, log, state } = setup({ marker: true, answer: 'unconfirmed' });
    await writes.github.updateIssue({ repo: 'acme/app', number: 7, effectKey: 'k' });
    expect(log.names()).toEqual(['updateIssue']);
    expect(state.uncertain).toEqual([]);
  });

  it('in runs recorded before the marker, lists nothing: the tools call the activities themselves', async () => {
    const { writes, githubWrites, log, state } = setup({ marker: false, answer: 'unconfirmed' });
    expect(writes.github).toBe(githubWrites);
    await writes.github.postComment(comment);
    expect(state.uncertain).toEqual([]);
    expect(log.names()).toEqual(['postComment']);
  });

  it("lists the card's last update when it cannot be confirmed, and repairs it under the next key", async () => {
    const { writes, state, log } = setup({ marker: true, answer: 'unconfirmed' });
    state.finish('completed');
    await writes.card.settle(true);
    expect(log.inputs('statusCard')).toEqual([expect.objectContaining({ effectKey: 'run:thread:slack:C1:1.2:1/card/0', final: true })]);
    expect(state.card.generation).toBe(1);
    expect(state.uncertain).toEqual([expect.objectContaining({ effectKey: 'run:thread:slack:C1:1.2:1/card/0' })]);
  });

  it("lists a unit run's writes in its unit and any other run's in its thread", () => {
    expect(listingWorkflow('unit:acme/app#7/coding-1', { threadId: 't' })).toBe('unit:acme/app#7');
    expect(listingWorkflow('run:thread:slack:C1:1.2:1/task-1', { threadId: 'thread:slack:C1:1.2' })).toBe('thread:slack:C1:1.2');
  });
});
