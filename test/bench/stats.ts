/** Medians, p99s and ratios for the bench table. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export interface Row {
  what: string;
  floor?: number[];
  ours: number[];
  /** The target ratio of our median to the floor's, or an absolute target in ms for our p99. */
  target?: { ratio?: number; p99Ms?: number };
  unit?: string;
}

const fmt = (value: number, unit = 'ms') => (Number.isNaN(value) ? '—' : `${Math.round(value).toLocaleString('en-US')} ${unit}`);

export function table(rows: Row[]): string {
  const lines = [
    '| what | floor median | floor p99 | Switchboard median | Switchboard p99 | ratio (medians) | target | met |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of rows) {
    const floorMedian = row.floor ? percentile(row.floor, 50) : NaN;
    const ours = percentile(row.ours, 50);
    const ratio = row.floor ? ours / floorMedian : NaN;
    const target = row.target?.ratio ? `≤ ${row.target.ratio}×` : row.target?.p99Ms ? `p99 < ${fmt(row.target.p99Ms, row.unit)}` : '';
    const met = row.target?.ratio ? ratio <= row.target.ratio : row.target?.p99Ms ? percentile(row.ours, 99) < row.target.p99Ms : undefined;
    lines.push(
      `| ${row.what} | ${fmt(floorMedian, row.unit)} | ${row.floor ? fmt(percentile(row.floor, 99), row.unit) : '—'} | ${fmt(ours, row.unit)} | ${fmt(percentile(row.ours, 99), row.unit)} | ${Number.isNaN(ratio) ? '—' : `${ratio.toFixed(2)}×`} | ${target} | ${met === undefined ? '' : met ? 'yes' : 'no'} |`,
    );
  }
  return lines.join('\n');
}
