// How the experiment runs read in a terminal (`opencoder runs`): one aligned row per run with the fields the Runs
// list and the Reports menu show (label, task or manifest, methods, backend, created, status, results, id).

import type { RunListItem } from '../../../../contract/index.ts';

const COLUMNS: { head: string; max: number; of: (r: RunListItem) => string }[] = [
  { head: 'LABEL', max: 60, of: (r) => r.label },
  { head: 'TASK / MANIFEST', max: 48, of: (r) => r.subject },
  { head: 'METHODS', max: 40, of: (r) => (r.conditions.length <= 3 ? r.conditions.join(',') : `${r.conditions.length} conditions`) },
  { head: 'BACKEND', max: 36, of: (r) => r.backend },
  { head: 'CREATED', max: 20, of: (r) => r.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z') },
  { head: 'STATUS', max: 11, of: (r) => r.state },
  { head: 'RESULTS', max: 24, of: (r) => `${r.results}/${r.tasks * r.conditions.length}${r.errors ? ` (${r.errors} unscored)` : ''}` },
  { head: 'ID', max: 40, of: (r) => r.id },
];

const clip = (s: string, max: number): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** The runs as aligned columns, a header first. */
export function runsTable(items: RunListItem[]): string[] {
  const cells = items.map((r) => COLUMNS.map((c) => clip(c.of(r), c.max)));
  const widths = COLUMNS.map((c, i) => Math.max(c.head.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((v, i) => (i === row.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  return [line(COLUMNS.map((c) => c.head)), ...cells.map(line)];
}
