import type { SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { log, patched, setHandler } from '@temporalio/workflow';
import { failure, inputProblem, MESSAGE_INPUTS, type FailureCode, type MessageInput } from './contracts';

/**
 * The `patched()` id of a signal whose text is past its bound (a steer over MAX_STEER_CHARS)
 * being dropped like any malformed signal; histories recorded before took it (docs/versioning.md).
 */
export const INPUT_LENGTH_BOUND = 'input-length-bound';

/**
 * Checks every signal and update a workflow takes against its shape in the contracts
 * (contracts/inputs.ts) before a handler sees it, so no input sent by hand (the `temporal`
 * CLI, the Web UI) can reach the workflow's state malformed and fail its next task. An update
 * is refused by its validator, non-retryably, with the field named; a signal cannot be
 * refused, so it is dropped, logged, and counted in the workflow's current details.
 */
export class InputGuard {
  dropped = 0;
  last?: { name: string; problem: string };

  constructor(
    private readonly workflowType: string,
    /** Called after a drop, so the workflow shows the count in its current details. */
    private readonly onDrop: () => void = () => undefined,
  ) {}

  /** Sets the signal's handler behind the check; `handler` sees only well-formed input. */
  signal<T>(definition: SignalDefinition<[T]>, handler: (input: T) => void): void {
    const entry = this.entry(definition.name, 'signal');
    setHandler(definition, ((...args: unknown[]) => {
      const absentOk = entry.absentOk ?? false;
      // A text past its bound is dropped only in histories that know the bound (asked only then).
      const loose = inputProblem(entry.shape, args, { absentOk, bounded: false });
      const tooLong = loose ? undefined : inputProblem(entry.shape, args, { absentOk });
      const problem = loose ?? (tooLong && patched(INPUT_LENGTH_BOUND) ? tooLong : undefined);
      if (problem) this.drop(definition.name, problem);
      else handler(args[0] as T);
    }) as (input: T) => void);
  }

  /**
   * Sets the update's handler with a validator: the shape first (refused as `code`, naming the
   * field), then `also` for what the workflow's state decides (a finished run refuses a steer).
   */
  update<R, T>(
    definition: UpdateDefinition<R, [T]>,
    handler: (input: T) => R | Promise<R>,
    options: { code?: FailureCode; also?: (input: T) => void } = {},
  ): void {
    const entry = this.entry(definition.name, 'update');
    setHandler(definition, handler, {
      validator: (...args: unknown[]) => {
        const problem = inputProblem(entry.shape, args, { absentOk: entry.absentOk ?? false });
        if (problem) throw failure(options.code ?? 'invalid_input', `${definition.name}: ${problem}`);
        options.also?.(args[0] as T);
      },
    });
  }

  /** "2 malformed signals dropped (last: `steer`: `text` must be a string (got 42))", or nothing. */
  note(): string | undefined {
    if (!this.last) return undefined;
    return `${this.dropped} malformed signal${this.dropped === 1 ? '' : 's'} dropped (last: \`${this.last.name}\`: ${this.last.problem})`;
  }

  /** Drops a well-formed signal the workflow's state refuses (a `prEvent` for another pull request). */
  drop(name: string, problem: string): void {
    this.dropped += 1;
    this.last = { name, problem };
    log.warn(`dropped a malformed \`${name}\` signal: ${problem}`, { signal: name, problem, dropped: this.dropped });
    this.onDrop();
  }

  private entry(name: string, kind: MessageInput['kind']): MessageInput {
    const entry = MESSAGE_INPUTS[this.workflowType]?.find((candidate) => candidate.name === name && candidate.kind === kind);
    if (!entry) throw new Error(`${this.workflowType} takes the ${kind} \`${name}\`, which contracts/inputs.ts does not list`);
    return entry;
  }
}
