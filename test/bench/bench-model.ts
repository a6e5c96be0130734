import { anthropicMessage, type RecordedRequest, type WireReply } from '../emulators/anthropic-server';
import { chatCompletion } from '../emulators/openai-server';
import { COMPACTION_INSTRUCTION } from '../../workflows/run/context-window';

/** One model turn of a bench run: some words and the tool calls the model makes. */
export interface BenchStep {
  text: string;
  calls: { name: string; input: Record<string, unknown> }[];
}

/** How a request is answered: a step of the script, a compaction's summary, a closing summary, or another run's turn. */
type Kind = 'step' | 'compaction' | 'summary' | 'other';

/**
 * A model for the cost bench that answers from the request, on both wire protocols: the
 * run's next scripted step (tool calls whose output sizes the bench chose), a summary for a
 * compaction or a closing-summary turn, and for any other run's request (a ship unit's review)
 * whatever `other` says. One scripted run at a time; requests of the scripted run are marked.
 */
export class BenchModel {
  private steps: BenchStep[] = [];
  private finalText = '';
  private next = 0;
  private calls = 0;
  /** Which conversation this run's requests belong to: a text its first user message holds. */
  private marker = '';
  /** The recorded requests that belong to the scripted run. */
  readonly mine = new Set<RecordedRequest>();

  constructor(private readonly other: (request: RecordedRequest) => BenchStep | string = () => 'Done.') {}

  /** Plays this script for the next run whose first user message contains `marker`. */
  play(marker: string, steps: BenchStep[], finalText: string): void {
    this.marker = marker;
    this.steps = steps;
    this.finalText = finalText;
    this.next = 0;
  }

  readonly anthropic = (request: RecordedRequest): WireReply => {
    const answer = this.answer(request, firstUserText(request.body?.messages ?? []), lastUserText(request.body?.messages ?? []));
    if (typeof answer === 'string') return anthropicMessage({ text: answer, usage: { input_tokens: 1, output_tokens: 100 } });
    return anthropicMessage({
      text: answer.text,
      toolUses: answer.calls.map((call) => ({ id: `toolu_bench_${(this.calls += 1)}`, name: call.name, input: call.input })),
      usage: { input_tokens: 1, output_tokens: 200 },
    });
  };

  readonly openai = (request: RecordedRequest): WireReply => {
    const messages = (request.body?.messages ?? []).filter((message: { role: string }) => message.role !== 'system');
    const answer = this.answer(request, openaiUserText(messages, 'first'), openaiUserText(messages, 'last'));
    if (typeof answer === 'string') return chatCompletion({ text: answer, usage: { prompt_tokens: 1, completion_tokens: 100 } });
    return chatCompletion({
      text: answer.text,
      toolCalls: answer.calls.map((call) => ({
        id: `call_bench_${(this.calls += 1)}`,
        name: call.name,
        arguments: JSON.stringify(call.input),
      })),
      usage: { prompt_tokens: 1, completion_tokens: 200 },
    });
  };

  private answer(request: RecordedRequest, first: string, last: string): BenchStep | string {
    const kind = this.kindOf(first, last);
    if (kind === 'other') return this.other(request);
    this.mine.add(request);
    if (kind === 'compaction') return `Summary so far: ${this.next} steps done; the numbers are in the results above.`;
    if (kind === 'summary') return `Closing summary after ${this.next} steps: what was checked, what holds, what is left.`;
    const step = this.steps[this.next];
    this.next += 1;
    return step ?? this.finalText;
  }

  private kindOf(first: string, last: string): Kind {
    if (!this.marker || !first.includes(this.marker)) return 'other';
    if (last === COMPACTION_INSTRUCTION) return 'compaction';
    if (last.startsWith('(system) The run has reached')) return 'summary';
    return 'step';
  }
}

type AnthropicMessage = { role: string; content: string | { type: string; text?: string }[] };

function textsOf(message: AnthropicMessage | undefined): string[] {
  if (!message) return [];
  if (typeof message.content === 'string') return [message.content];
  return message.content.filter((block) => block.type === 'text').map((block) => block.text ?? '');
}

function firstUserText(messages: AnthropicMessage[]): string {
  return textsOf(messages.find((message) => message.role === 'user')).join('\n');
}

function lastUserText(messages: AnthropicMessage[]): string {
  const last = messages[messages.length - 1];
  return last?.role === 'user' ? (textsOf(last).pop() ?? '') : '';
}

function openaiUserText(messages: { role: string; content?: string | null }[], which: 'first' | 'last'): string {
  if (which === 'first') return messages.find((message) => message.role === 'user')?.content ?? '';
  const last = messages[messages.length - 1];
  return last?.role === 'user' ? (last.content ?? '') : '';
}
