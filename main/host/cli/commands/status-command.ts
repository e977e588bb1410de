// `opencoder status`: the repositories in the database and their index state. It only reads the store, so this
// file imports no encoder, parser or indexer: the command starts as fast as the database opens.

import { dbPathOf, type Command } from '../kit.ts';
import { openReadOnlyStore } from '../read-store.ts';
import { STATUS_SPECS } from '../specs.ts';
import { statusLines } from '../text/status-text.ts';

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
        return { text: statusLines(dbPath, store.missing, repos), json: { ok: true, command: 'status', db: dbPath, repositories: repos } };
      } finally {
        store.close();
      }
    },
  },
};
