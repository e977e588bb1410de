// What tells one experiment run from another wherever runs are listed (the Runs list, the Reports menu, the CLI's
// `runs`): the run's subject (its task, or its manifest and task count), its methods, its backend, and the label made
// from them when the run is frozen. A run stored before labels existed (label null) shows the automatic label
// computed from what it stored. Plain data and functions, shared by the engine, the CLI and the renderer.

import { OFFLINE_LABEL } from './backend-label.ts';

/** What a stored run keeps that its label is made from. */
export interface RunNaming {
  manifestFile: string;
  taskIds: readonly string[];
  /** Condition (method) ids. */
  conditions: readonly string[];
  backend: string;
}

/** The most characters a run label may have (the contract's limit for run.rename). */
export const MAX_RUN_LABEL = 200;

/** The manifest's file name (without its folder): what a user recognises. */
export function manifestName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

/** The run's subject: `TASK (manifest.json)` for a one-task run, `manifest.json · N tasks` otherwise. */
export function runSubject(r: Pick<RunNaming, 'manifestFile' | 'taskIds'>): string {
  const name = manifestName(r.manifestFile);
  return r.taskIds.length === 1 ? `${r.taskIds[0]} (${name})` : `${name} · ${r.taskIds.length} tasks`;
}

/** The methods a run compares, shortened past three. */
export function runMethods(conditions: readonly string[]): string {
  return conditions.length <= 3 ? conditions.join(', ') : `${conditions.slice(0, 2).join(', ')} +${conditions.length - 2} more`;
}

/** The label a run gets when it is created: its task (or manifest), its methods and its backend. */
export function autoRunLabel(r: RunNaming): string {
  const subject = r.taskIds.length === 1 ? r.taskIds[0]! : `${manifestName(r.manifestFile)} (${r.taskIds.length} tasks)`;
  const label = `${subject} · ${runMethods(r.conditions)} · ${r.backend}`;
  return label.length <= MAX_RUN_LABEL ? label : `${label.slice(0, MAX_RUN_LABEL - 1)}…`;
}

/** A stored run's backend as a user reads it: the offline generator's one name, else the label its provenance froze. */
export function storedBackendLabel(backend: { kind?: string; model?: string | null } | null, provenance: { backend?: { label?: string } } | null): string {
  if (backend?.kind === 'offline') return OFFLINE_LABEL;
  return provenance?.backend?.label ?? ([backend?.kind, backend?.model].filter(Boolean).join(':') || 'unknown');
}
