// The written-task form's draft, kept in localStorage so a reload (or a crash of the tab) does not lose it: one draft
// per repository folder (the most recent few), newest first, so the form reopens on the draft the analyst left.
// A folder the analyst did not type follows the repository they are working on (the one chosen in the Repository
// view, else the one indexed last), so indexing another repository does not leave the form on the sample.

import type { CustomTask } from '../../api/contract.ts';

export type CustomDraft = Record<keyof CustomTask, string> & {
  /** The analyst typed the folder: it stays as typed. Otherwise it is the default and follows the working repository. */
  repoTyped?: boolean;
};

export const DRAFTS_KEY = 'opencoder.customTaskDrafts';
/** Drafts kept: typing a folder path letter by letter must not fill the storage with one draft per prefix. */
const KEEP = 12;
const FIELDS: (keyof CustomTask)[] = ['repo', 'file', 'qualname', 'signature', 'requirement', 'test_command'];

type DraftStorage = Pick<Storage, 'getItem' | 'setItem'>;

export const emptyDraft = (repo: string): CustomDraft => ({ repo, file: '', qualname: '', signature: '', requirement: '', test_command: '' });

/** The stored drafts, newest first; anything unreadable is dropped. */
function readDrafts(storage: DraftStorage): CustomDraft[] {
  const raw = storage.getItem(DRAFTS_KEY);
  const parsed: unknown = raw ? JSON.parse(raw) : [];
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object')
    .map((d) => {
      const draft = emptyDraft('');
      for (const f of FIELDS) if (typeof d[f] === 'string') draft[f] = d[f];
      if (typeof d.repoTyped === 'boolean') draft.repoTyped = d.repoTyped;
      return draft;
    });
}

/** The newest draft (or an empty one for `fallbackRepo`); unreadable storage gives an empty one. */
export function loadCustomDraft(storage: DraftStorage, fallbackRepo: string): CustomDraft {
  try {
    return readDrafts(storage)[0] ?? emptyDraft(fallbackRepo);
  } catch {
    return emptyDraft(fallbackRepo);
  }
}

const sameButFolder = (a: CustomDraft, b: CustomDraft) => FIELDS.every((f) => f === 'repo' || a[f] === b[f]);

/**
 * Stores the draft as its folder's (newest first). An edit of the folder alone renames the newest draft rather than
 * adding one per keystroke. A full or disabled storage keeps the draft in the page only.
 */
export function saveCustomDraft(storage: DraftStorage, draft: CustomDraft): void {
  try {
    let others: CustomDraft[] = [];
    try {
      const all = readDrafts(storage);
      others = (all[0] && sameButFolder(all[0], draft) ? all.slice(1) : all).filter((d) => d.repo !== draft.repo);
    } catch {
      // a damaged list is replaced
    }
    storage.setItem(DRAFTS_KEY, JSON.stringify([draft, ...others].slice(0, KEEP)));
  } catch {
    // the form still holds the values for this page's lifetime
  }
}

/** A repository as the working-folder choice needs it (RepoSummary has these). */
export interface RepoRef {
  id: number;
  root: string;
  lastIndexedAt: string | null;
}

/**
 * The folder of the repository the analyst is working on: the one chosen in the Repository view, else the one indexed
 * most recently (one never indexed counts last); null when there is none.
 */
export function workingRepoRoot(repos: readonly RepoRef[] | null | undefined, selectedId: number | null): string | null {
  if (!repos?.length) return null;
  const chosen = selectedId === null ? undefined : repos.find((r) => r.id === selectedId);
  if (chosen) return chosen.root;
  const newest = [...repos].sort((a, b) => (b.lastIndexedAt ?? '').localeCompare(a.lastIndexedAt ?? ''))[0]!;
  return newest.root;
}

/**
 * Whether the draft's folder was typed by the analyst. Drafts stored before this was recorded: typed unless empty or
 * the sample repository (the old default).
 */
export function folderTyped(draft: CustomDraft, sampleRepo?: string | null): boolean {
  return draft.repoTyped ?? (draft.repo !== '' && draft.repo !== sampleRepo);
}

/** The draft with its folder set to `folder` unless the analyst typed one (or there is no folder to follow). */
export function withDefaultFolder(draft: CustomDraft, folder: string | null | undefined, sampleRepo?: string | null): CustomDraft {
  if (!folder || folderTyped(draft, sampleRepo) || draft.repo === folder) return draft;
  return { ...draft, repo: folder, repoTyped: false };
}
