import { type Command } from 'commander';
import { payloadsDir } from '../../infra/payloads';
import { formatDuration, parseDuration, pruneDirectory, SAFETY_MARGIN_MS, type PruneCount } from '../payload-prune';
import { pruneCutoff } from '../prune-cutoff';
import { withCliClient } from '../temporal-client';

/** `switchboard payloads prune [--older-than 30d] [--dry-run] [--json]`: deletes claim-check blobs no retained history references. */
export function registerPayloadsCommand(program: Command): void {
  const payloads = program
    .command('payloads')
    .description('the claim-check folder (payloads.dir) where large payloads live outside history');
  payloads
    .command('prune')
    .description(
      `delete claim-check blobs last written before a cutoff: --older-than, else the namespace's retention + ${formatDuration(SAFETY_MARGIN_MS)}, never after the oldest workflow Temporal still keeps (minus ${formatDuration(SAFETY_MARGIN_MS)})`,
    )
    .option('--older-than <age>', "age of the blobs to delete: 36h, 30d, 2w (default: the namespace's retention + margin)")
    .option('--dry-run', 'count what would be deleted; delete nothing')
    .option('--json', 'print JSON')
    .action(async (options: { olderThan?: string; dryRun?: boolean; json?: boolean }) => {
      let olderThanMs: number | undefined;
      try {
        olderThanMs = options.olderThan === undefined ? undefined : parseDuration(options.olderThan);
      } catch (error) {
        console.error((error as Error).message);
        process.exitCode = 1;
        return;
      }
      await withCliClient(async ({ client, loaded }) => {
        const dir = payloadsDir(loaded.config);
        const now = new Date();
        const cut = await pruneCutoff(client, loaded.config.temporal.namespace, now, olderThanMs);
        const report = await pruneDirectory({ dir, cutoff: cut.cutoff, now, dryRun: options.dryRun ?? false });
        if (options.json) {
          console.log(JSON.stringify({ dir, dryRun: options.dryRun ?? false, ...cut, ...report }, null, 2));
          return;
        }
        const why =
          cut.retentionMs !== undefined
            ? `retention ${formatDuration(cut.retentionMs)} + margin ${formatDuration(SAFETY_MARGIN_MS)}`
            : `--older-than ${options.olderThan}`;
        const verb = options.dryRun ? 'Would delete' : 'Deleted';
        console.log(
          [
            `Claim-check folder ${dir}`,
            `Cutoff ${cut.cutoff.toISOString()} (${why})`,
            ...(cut.heldBy
              ? [
                  `  held back by ${cut.heldBy.workflowId} (${cut.heldBy.status.toLowerCase()}, started ${cut.heldBy.startTime.toISOString()}): Temporal still keeps its history`,
                ]
              : []),
            `${verb} ${count(report.deleted)}; kept ${count(report.kept)}`,
            `${options.dryRun ? 'Would remove' : 'Removed'} ${count(report.stalePartials, 'abandoned .partial file')}; left ${count(report.inFlightPartials, '.partial file')} younger than an hour`,
          ].join('\n'),
        );
      });
    });
}

function count(value: PruneCount, noun = 'blob'): string {
  return `${value.files} ${noun}${value.files === 1 ? '' : 's'} (${value.bytes.toLocaleString('en-US')} bytes)`;
}
