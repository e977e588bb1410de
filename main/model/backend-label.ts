// What a user reads for a generation backend: the offline generator's one name ("no model (retrieval-only
// baseline)") wherever it appears (its own label, Settings, the CLI, reports, the UI, runs stored before it was
// named so), and the labels that keep runs of different backends apart when a chart or table shows them
// together. Plain data and functions, shared by the engine, the reports and the renderer.

/** The offline retrieve-and-adapt generator's name everywhere a user sees it. */
export const OFFLINE_LABEL = 'no model (retrieval-only baseline)';

/**
 * The offline generator as a sentence names it: OFFLINE_LABEL is a name ("no model (…)") and reads wrongly after an
 * article or in a list ("Results are the no model …"), so prose says this instead.
 */
export const OFFLINE_IN_SENTENCE = 'the retrieval-only baseline (no model)';

/** A backend as runs and results record it: any of its id (`offline:retrieve-and-adapt@1`), provider and label. */
export interface BackendNaming {
  id?: string | null;
  provider?: string | null;
  label?: string | null;
}

/** Whether a recorded backend is the offline generator (no language model). */
export function isOfflineBackend(b: BackendNaming): boolean {
  return b.provider === 'offline' || b.id === 'offline' || (b.id ?? '').startsWith('offline:');
}

/** The name to show for a recorded backend: OFFLINE_LABEL for the offline generator, else its own label (or id). */
export function backendDisplayLabel(b: BackendNaming): string {
  if (isOfflineBackend(b)) return OFFLINE_LABEL;
  return b.label || b.id || b.provider || 'unknown backend';
}

/** A recorded backend inside a sentence: OFFLINE_IN_SENTENCE for the offline generator, else `the model <label>`. */
export function backendInSentence(b: BackendNaming): string {
  return isOfflineBackend(b) ? OFFLINE_IN_SENTENCE : `the model ${backendDisplayLabel(b)}`;
}

/**
 * The backend label of each run, by run id, when the runs shown together came from more than one backend; null when
 * they share one (then a series needs no backend in its name).
 */
export function mixedBackendLabels(runs: readonly { id: string; backend: BackendNaming }[]): Map<string, string> | null {
  const labels = new Map(runs.map((r) => [r.id, backendDisplayLabel(r.backend)]));
  return new Set(labels.values()).size > 1 ? labels : null;
}
