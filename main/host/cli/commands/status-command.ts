// `opencoder status`: the repositories in the database and their index state. It only reads the store, so this
// file imports no encoder, parser or indexer: the command starts as fast as the database opens.

import { otherFilesOfRun, repositoryCounts, repositoryEmbeddedText, repositoryFilesText, TEXT_MEANING } from '../../../model/index-counts.ts';
import { skipCountsText } from '../../../model/skip-reasons.ts';
import { dbPathOf, fmtCounts, type Command } from '../kit.ts';
import { openReadOnlyStore } from '../read-store.ts';
import { STATUS_SPECS } from './specs.ts';

export const STATUS_COMMANDS: Record<string, Command> = {
  status: {
    ...STATUS_SPECS.status,
    async run({ values }) {
      const dbPath = dbPathOf(values);
      const store = openReadOnlyStore(values);
      try {
        const repos = store
          .listRepositories()
          .map((r) => ({ ...r, stats: store.stats(r.id), lastRun: store.lastRun(r.id) ?? null, include: store.includePatterns(r.id) }));
        const text = [`Database: ${dbPath}${store.missing ? ' (not created yet)' : ''}`];
        if (!repos.length) text.push('No repositories indexed yet. Run: opencoder index <folder>');
        for (const r of repos) {
          const s = r.stats;
          text.push(
            '',
            `${r.name}  (${r.root})`,
            `  last indexed: ${r.last_indexed_at ?? 'never completed'}; last run: ${r.lastRun?.status ?? 'none'}${r.lastRun?.status === 'interrupted' ? ' (its process is gone; indexing again resumes it)' : ''}`,
            `  files: ${s.files.indexed + s.files.partial} indexed (${s.files.partial} partial); skipped: ${skipCountsText(s.skipped)}`,
            `  units: ${fmtCounts(s.units)}; chunks ${s.chunks}; API entries ${s.apiEntries}`,
            `  encoder: ${s.encoder ? `${s.encoder.name} (${s.encoder.dim}-d)` : 'none yet'}; embedded: unit ${s.embedded.unit}, chunk ${s.embedded.chunk}, api ${s.embedded.api}`,
            `  ${repositoryFilesText(repositoryCounts(s, otherFilesOfRun(r.lastRun?.stats)))}; ${repositoryEmbeddedText(repositoryCounts(s, null))} (${TEXT_MEANING})`,
          );
          if (r.include.length > 0) text.push(`  include patterns (files forced in): ${r.include.join(', ')}`);
        }
        return { text, json: { ok: true, command: 'status', db: dbPath, repositories: repos } };
      } finally {
        store.close();
      }
    },
  },
};
