// `opencoder runs`: the experiment runs as a table a user can tell them apart by (label, task or manifest, methods,
// backend, created, status, results, id), the same fields the Runs list and the Reports menu show; and
// `opencoder runs --rename RUN --label TEXT` to name one (an empty label goes back to the automatic one).

import { MAX_RUN_LABEL } from '../../../model/run-label.ts';
import { Store } from '../../../store/store.ts';
import { runListItem } from '../../calls/experiments.ts';
import { dbPathOf, UsageError, type Command } from '../kit.ts';
import { openReadOnlyStore } from '../read-store.ts';
import { EXPERIMENT_SPECS } from '../specs.ts';
import { runsTable } from '../text/runs-text.ts';

function rename(values: Record<string, unknown>): { text: string[]; json: unknown } {
  const runId = values.rename as string;
  if (typeof values.label !== 'string') throw new UsageError('--rename needs --label TEXT (an empty --label "" goes back to the automatic label)');
  const label = values.label.trim() || null;
  if (label && label.length > MAX_RUN_LABEL) throw new UsageError(`--label is ${label.length} characters; a run label has at most ${MAX_RUN_LABEL}`);
  const store = Store.open(dbPathOf(values));
  try {
    if (!store.experiments.rename(runId, label)) throw new UsageError(`no experiment run ${runId} in ${store.path} (see opencoder runs)`);
    const item = runListItem(store.experiments.listed(runId)!);
    return { text: [`Run ${runId} is now labelled "${item.label}"${label ? '' : ' (automatic)'}`], json: { ok: true, command: 'runs', renamed: item } };
  } finally {
    store.close();
  }
}

export const runsCommand: Command = {
  ...EXPERIMENT_SPECS.runs,
  async run({ values }) {
    if (values.rename !== undefined) return rename(values);
    if (values.label !== undefined) throw new UsageError('--label needs --rename RUN_ID (the run to label)');
    const store = openReadOnlyStore(values);
    try {
      const list = store.experiments.list();
      const items = list.map(runListItem);
      const text = items.length ? runsTable(items) : ['No experiment runs yet: start one with opencoder run --manifest FILE'];
      return {
        text,
        json: {
          ok: true,
          command: 'runs',
          runs: list.map(({ conditions, provenance, ...r }, i) => ({
            ...r,
            conditions: (conditions as { id: string }[]).map((c) => c.id),
            label: items[i]!.label,
            autoLabel: items[i]!.autoLabel,
            subject: items[i]!.subject,
            backendLabel: items[i]!.backend,
          })),
        },
      };
    } finally {
      store.close();
    }
  },
};
