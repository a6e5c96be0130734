import type { PullDetail } from '../../../workflows/contracts/github';
import { clip, esc, plural } from './html';
import type { Block, RenderContext } from './parts';

/** A file's patch beyond this is cut on the page (the pull request has the whole). */
const PATCH_CHARS = 12_000;
/** Files beyond this are listed by name only. */
const FILES_SHOWN = 40;

/** A pull request's diff against its base, a file per collapsed section, lines coloured (and marked +/-). */
export function renderDiff(
  diff: { headSha: string; base: string; url?: string; files: PullDetail['files'] },
  context: RenderContext,
  id = 'diff-files',
): Block {
  const { redact } = context;
  const added = diff.files.reduce((sum, file) => sum + file.additions, 0);
  const removed = diff.files.reduce((sum, file) => sum + file.deletions, 0);
  const files = diff.files.slice(0, FILES_SHOWN).map((file, index) => {
    const patch = file.patch === undefined ? '' : clip(redact(file.patch), PATCH_CHARS, 0.1).text;
    const lines = patch
      .split('\n')
      .map(
        (line) =>
          `<span class="${line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : 'ctx'}">${esc(line)}</span>`,
      )
      .join('\n');
    return (
      `<details class="diff-file" data-key="f${index}"><summary><code>${esc(redact(file.path))}</code> · ${esc(file.status)} · ` +
      `<span class="add">+${file.additions}</span> <span class="del">−${file.deletions}</span></summary>` +
      (patch
        ? `<pre class="diff" aria-label="diff of ${esc(redact(file.path))}">${lines}</pre>`
        : '<p class="io">no text diff (binary or too large)</p>') +
      '</details>'
    );
  });
  const more = diff.files.length > FILES_SHOWN ? `<p class="io">and ${diff.files.length - FILES_SHOWN} more files</p>` : '';
  const where = diff.url ? ` · <a href="${esc(diff.url)}" rel="noopener noreferrer">the pull request</a>` : '';
  return {
    id,
    html:
      `<div class="diffs"><p class="io">${plural(diff.files.length, 'file')} against <code>${esc(diff.base)}</code> at ` +
      `<code>${esc(diff.headSha.slice(0, 12))}</code>: <span class="add">+${added}</span> <span class="del">−${removed}</span>${where}</p>` +
      `${files.join('')}${more}</div>`,
  };
}
