// The written-task form's folder (renderer/src/views/task/custom-draft.ts): until the analyst types one it follows
// the repository they work on — the one chosen in the Repository view, else the one indexed last — and a typed
// folder is never overwritten, across a reload too.

import { describe, expect, it } from 'vitest';
import { emptyDraft, loadCustomDraft, saveCustomDraft, withDefaultFolder, workingRepoRoot } from '../../renderer/src/views/task/custom-draft.ts';

const SAMPLE = '/app/sample-repo';
const repos = [
  { id: 1, root: SAMPLE, lastIndexedAt: '2025-01-01T10:00:00Z' },
  { id: 2, root: '/home/me/projects/mine', lastIndexedAt: '2025-01-01T11:00:00Z' },
  { id: 3, root: '/home/me/projects/never', lastIndexedAt: null },
];

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v) };
}

describe('the written task follows the working repository', () => {
  it('is the repository chosen in the Repository view, else the one indexed most recently', () => {
    expect(workingRepoRoot(repos, null)).toBe('/home/me/projects/mine');
    expect(workingRepoRoot(repos, 1)).toBe(SAMPLE);
    expect(workingRepoRoot(repos, 99)).toBe('/home/me/projects/mine'); // a choice that is gone counts as none
    expect(workingRepoRoot([], null)).toBeNull();
    expect(workingRepoRoot(null, 1)).toBeNull();
  });

  it('moves a folder the analyst did not type to the working repository, keeping the other fields', () => {
    const draft = { ...emptyDraft(SAMPLE), requirement: 'Format sizes.' };
    expect(withDefaultFolder(draft, '/home/me/projects/mine', SAMPLE)).toEqual({ ...draft, repo: '/home/me/projects/mine', repoTyped: false });
    expect(withDefaultFolder(emptyDraft(''), '/home/me/projects/mine', SAMPLE).repo).toBe('/home/me/projects/mine');
    expect(withDefaultFolder({ ...draft, repo: '/home/me/projects/mine', repoTyped: false }, '/home/me/projects/other', SAMPLE).repo).toBe(
      '/home/me/projects/other',
    );
  });

  it('never overwrites a typed folder, even when it is the sample', () => {
    const typed = { ...emptyDraft('/home/me/proj'), repoTyped: true };
    expect(withDefaultFolder(typed, '/home/me/projects/mine', SAMPLE)).toBe(typed);
    const typedSample = { ...emptyDraft(SAMPLE), repoTyped: true };
    expect(withDefaultFolder(typedSample, '/home/me/projects/mine', SAMPLE)).toBe(typedSample);
  });

  it('reads drafts stored before the flag: the sample folder was the default, any other folder was typed', () => {
    expect(withDefaultFolder(emptyDraft(SAMPLE), '/home/me/projects/mine', SAMPLE).repo).toBe('/home/me/projects/mine');
    expect(withDefaultFolder(emptyDraft('/home/me/proj'), '/home/me/projects/mine', SAMPLE).repo).toBe('/home/me/proj');
  });

  it('keeps whether the folder was typed across a reload', () => {
    const storage = memoryStorage();
    saveCustomDraft(storage, { ...emptyDraft('/home/me/proj'), file: 'a.py', repoTyped: true });
    const back = loadCustomDraft(storage, '');
    expect(back.repoTyped).toBe(true);
    expect(withDefaultFolder(back, '/home/me/projects/mine', SAMPLE).repo).toBe('/home/me/proj');
    saveCustomDraft(storage, { ...emptyDraft('/home/me/projects/mine'), file: 'a.py', repoTyped: false });
    expect(withDefaultFolder(loadCustomDraft(storage, ''), '/home/me/projects/newer', SAMPLE).repo).toBe('/home/me/projects/newer');
  });
});
