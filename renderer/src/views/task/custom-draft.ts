// The written-task form's draft, kept in localStorage so a reload (or a crash of the tab) does not lose it: one draft
// per repository folder (the most recent few), newest first, so the form reopens on the draft the analyst left.

import type { CustomTask } from '../../api/contract.ts';

export type CustomDraft = Record<keyof CustomTask, string>;

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
