// How an index run reads in a terminal (`index`, `demo`): its timings, the files it saw and changed, what the
// repository now holds, and what its include patterns did.

import type { IndexStats } from '../../../index/index-types.ts';
import { includeRefusal } from '../../../index/include-rules.ts';
import { counts } from '../../../model/format.ts';
import { otherFilesText, repositoryCounts, repositoryEmbeddedText, repositoryFilesText, runEmbeddedText, TEXT_MEANING } from '../../../model/index-counts.ts';
import { skipCountsText, skipReasonText } from '../../../model/skip-reasons.ts';
import type { Store } from '../../../store/store.ts';

/** The skip reasons `--include PATH` can overrule. */
const FORCEABLE = ['generated', 'minified', 'too_large'];

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** An index run: its timings, the files it saw and changed, what the repository now holds, and the encoder. */
export function indexReport(stats: IndexStats, store: Store, notice: string | null): string[] {
  const s = store.stats(stats.repoId);
  const f = stats.files;
  const t = stats.timings;
  const lines = [
    `Repository: ${stats.root}`,
    `Run: ${stats.status} in ${seconds(t.total)} (scan ${seconds(t.scan)}, parse ${seconds(t.parse)}, embed ${seconds(t.embed)})`,
    `Files: ${f.seen} code files seen — ${f.added} added, ${f.changed} changed, ${f.removed} removed, ${f.touched} touched (same content, re-hashed only), ${f.unchanged} unchanged; ${otherFilesText(f.other)}`,
    `This run: ${stats.parsedFiles} files parsed (${stats.filesWithSyntaxErrors} with syntax errors), ${runEmbeddedText(stats.embeddedTexts, stats.embeddedTexts)}`,
    `Indexed files: ${s.files.indexed + s.files.partial} (${s.files.partial} partially, after syntax errors)`,
    `In the repository: ${repositoryFilesText(repositoryCounts(s, f.other))}; ${repositoryEmbeddedText(repositoryCounts(s, f.other))} (${TEXT_MEANING})`,
    `Skipped: ${skipCountsText(stats.skipped)}${FORCEABLE.some((r) => stats.skipped[r]) ? ' (--include PATH forces a generated, minified or too large file in)' : ''}`,
    ...includeReport(stats),
    `Units: ${counts(s.units)}`,
    `Context chunks: ${s.chunks}; API entries: ${s.apiEntries}`,
    `Encoder: ${stats.encoder.name} (${stats.encoder.dim}-d, id ${stats.encoder.id})`,
  ];
  if (notice) lines.push(`Note: ${notice}`);
  return lines;
}

/** The lines on files forced in by include patterns, and on patterns that matched nothing. */
function includeReport(stats: IndexStats): string[] {
  const { forced, include } = stats;
  const lines: string[] = [];
  if (forced.length > 0) {
    const by: Record<string, number> = {};
    for (const f of forced) by[f.reason] = (by[f.reason] ?? 0) + 1;
    const shown = forced.slice(0, 10).map((f) => f.path);
    const more = forced.length > shown.length ? `, … ${forced.length - shown.length} more` : '';
    lines.push(`Forced in: ${forced.length} (indexed by include patterns; would be skipped as ${skipCountsText(by)}): ${shown.join(', ')}${more}`);
  }
  if (include.patterns.length > 0) lines.push(`Include patterns (remembered; --drop-include PATTERN forgets one): ${include.patterns.join(', ')}`);
  for (const f of include.refused) lines.push(`Note: ${f.path} stays skipped as ${skipReasonText(f.reason)}: ${includeRefusal(f.reason, f.pattern)}`);
  for (const p of include.unmatched) {
    lines.push(
      `Note: include pattern ${p} matched no file the walk reached (patterns are relative to the repository root; files under skipped or ignored folders are not reached)`,
    );
  }
  return lines;
}
