import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { RESERVE_DEFAULTS, usdText } from '../agents/spend-caps';
import { spendLedger } from './activity-proxies';
import {
  releaseSpendSignal,
  reserveSpendUpdate,
  spendLedgerQuery,
  sweepSpendUpdate,
  type SpendLedgerInput,
  type SpendLedgerWorkflow,
  type SpendReservation,
  type SpendReserveRequest,
} from './contracts';
import { currentDetails } from './details';
import { failureReason } from './failure-reason';
import { InputGuard } from './input-guard';
import { SwitchboardKind } from './search-attributes';
import { LedgerBook, type SpendSums } from './spend/ledger-book';

/** Continue-as-new once history passes this many events (or Temporal suggests it), carrying the books. */
export const LEDGER_HISTORY_LIMIT = 2_000;

/**
 * The money reserved by work in progress, for one deployment (`spend-ledger:<task queue>`): an
 * entity workflow, so a reservation lives in workflow state and a kill, reset or terminate of
 * anything else never loses or doubles it. Starts reserve here one at a time (the `reserve`
 * update sums today's spend from Temporal, then holds or refuses); a holder's settling releases
 * (`release`); and every `sweepSeconds` while it holds anything, and before any refusal, the
 * ledger looks at its holders and releases what closed work (a terminated unit, a run reset away)
 * still holds. docs/models.md "Reservations".
 */
export async function spendLedgerWorkflow(input: SpendLedgerInput): Promise<void> {
  const book = new LedgerBook(input.carry);
  const sweepMs = (input.sweepSeconds ?? RESERVE_DEFAULTS.sweepSeconds) * 1_000;
  // One decision at a time: each sees every reservation made before it.
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = tail.then(work);
    tail = next.catch(() => undefined);
    return next;
  };
  const guard = new InputGuard('spendLedgerWorkflow', () => show());
  const show = () =>
    setCurrentDetails(
      currentDetails({
        phase: book.holds.length > 0 ? 'holding' : 'idle',
        note: ledgerNote(book),
        ...(guard.note() ? { dropped: guard.note() } : {}),
      }),
    );

  const sweep = async () => {
    const holders = book.holds.map((hold) => hold.holder);
    const look = holders.length > 0 ? await spendLedger.lookAtHolders({ holders }) : { closed: [], missing: [] };
    book.swept(look, Date.now());
  };
  const reserve = async (request: SpendReserveRequest): Promise<SpendReservation> => {
    const daily = book.dailyCaps(request);
    const sums = async (): Promise<SpendSums> =>
      daily.length === 0
        ? { spent: {}, byHolder: {} }
        : spendLedger.sumSpends({ caps: daily, threadId: request.threadId, now: Date.now(), holders: book.holderIds() });
    try {
      let verdict = book.reserve(request, await sums(), Date.now());
      // Closed work may still hold money: look at the holders before refusing on their account.
      if (verdict.kind === 'refuse' && book.holds.some((hold) => hold.holder !== request.holder)) {
        await sweep();
        verdict = book.reserve(request, await sums(), Date.now());
      }
      return verdict;
    } catch (error) {
      // Without today's sums nothing is admitted against a daily cap: fail closed, in words.
      return unsummed(request, failureReason(error));
    } finally {
      show();
    }
  };
  guard.update(reserveSpendUpdate, (request) => serial(() => reserve(request)));
  guard.signal(releaseSpendSignal, (release) => {
    book.release(release, Date.now());
    show();
  });
  guard.update(sweepSpendUpdate, () =>
    serial(async () => {
      await sweep();
      show();
      return book.state();
    }),
  );
  setHandler(spendLedgerQuery, () => book.state());
  upsertSearchAttributes([{ key: SwitchboardKind, value: 'ledger' }]);

  const limit = input.historyLimit ?? LEDGER_HISTORY_LIMIT;
  const historyFull = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > limit;
  for (;;) {
    show();
    if (book.holds.length > 0) await condition(historyFull, sweepMs);
    else await condition(() => book.holds.length > 0 || historyFull());
    // A look that fails (Temporal busy, too many holders for one activity) is tried again at the
    // next sweep: the ledger and every hold it keeps outlive it.
    if (book.holds.length > 0 && Date.now() - (book.sweptAt ?? 0) >= sweepMs) await serial(sweep).catch(() => undefined);
    if (historyFull()) {
      await condition(allHandlersFinished);
      await continueAsNew<SpendLedgerWorkflow>({ ...input, carry: book.state() });
    }
  }
}

/** The refusal when today's spend could not be summed: nothing passes a daily cap unseen. */
function unsummed(request: SpendReserveRequest, reason: string): SpendReservation {
  const cap = request.caps.find((entry) => entry.dailyUsd !== undefined)!;
  const now = Date.now();
  return {
    kind: 'refuse',
    code: 'spend_cap',
    reply: `Not started: today's spend could not be summed from Temporal just now (${reason}), and a daily spend cap applies. Try again in a moment.`,
    scope: cap.kind,
    id: cap.id,
    spentUsd: 0,
    capUsd: cap.dailyUsd ?? 0,
    resetsAt: now,
  };
}

function ledgerNote(book: LedgerBook): string {
  const held = book.holds.reduce((total, hold) => total + hold.usd, 0);
  return [
    `${book.holds.length} reservation${book.holds.length === 1 ? '' : 's'} (${usdText(held)})`,
    ...book.holds.slice(0, 5).map((hold) => `${hold.holder} ${usdText(hold.usd)}`),
    `${book.sweptHolders} released from closed work`,
  ].join(' · ');
}
