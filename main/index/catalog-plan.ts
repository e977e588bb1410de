// The catalog step of indexing: compare the walked files with what the store holds, as a plan
// (parse / touch / remove), then apply the cheap part of it. (path, size, mtime) are compared first and
// sha256 only when those moved, so a no-change re-index reads no file; a file whose bytes are the same
// only has its times touched.

import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import type { SkipRecord, Store } from '../store/store.ts';
import type { IndexEvent, IndexStats } from './index-types.ts';
import type { WalkedFile } from './walk.ts';

/** A file to parse: new, or changed (then its content and sha256 were already read to find that out). */
export interface ParseJob {
  file: WalkedFile;
  content?: Buffer;
  sha?: string;
  isNew: boolean;
}

/** What the catalog found to do. */
export interface CatalogPlan {
  /** New files and files whose content changed. */
  parse: ParseJob[];
  /** Same content under a new size or mtime: only the stored times change. */
  touch: { id: number; size: number; mtimeMs: number }[];
  /** Ids of stored files that are no longer on disk. */
  remove: number[];
  /** Changed files that could not be read, as skip records. */
  unreadable: SkipRecord[];
}

export function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

/** Reads a walked file; when it cannot be read, the warning to yield and the skip to record instead. */
export async function readWalked(file: WalkedFile): Promise<{ content: Buffer } | { warning: IndexEvent; skip: SkipRecord }> {
  try {
    return { content: await fs.readFile(file.absPath) };
  } catch (err) {
    const message = (err as Error).message;
    return {
      warning: { type: 'warning', path: file.relPath, message: `could not read: ${message}` },
      skip: { path: file.relPath, reason: 'unreadable', detail: message, isDir: false },
    };
  }
}

/**
 * Plans the catalog step, yielding a warning for each changed file it cannot read. Unchanged files are
 * counted into `tally` as they are seen (so a run stopped here records how far it got).
 */
export async function* planCatalog(store: Store, repoId: number, files: WalkedFile[], tally: IndexStats['files']): AsyncGenerator<IndexEvent, CatalogPlan> {
  const known = store.catalog(repoId);
  const plan: CatalogPlan = { parse: [], touch: [], remove: [], unreadable: [] };
  const seen = new Set<string>();
  for (const f of files) {
    seen.add(f.relPath);
    const prev = known.get(f.relPath);
    if (!prev) {
      plan.parse.push({ file: f, isNew: true });
      continue;
    }
    if (prev.size === f.size && prev.mtime_ms === f.mtimeMs) {
      tally.unchanged++;
      continue;
    }
    const read = await readWalked(f);
    if ('warning' in read) {
      yield read.warning;
      plan.unreadable.push(read.skip);
      continue;
    }
    const sha = sha256(read.content);
    if (sha === prev.sha256) {
      plan.touch.push({ id: prev.id, size: f.size, mtimeMs: f.mtimeMs });
    } else {
      plan.parse.push({ file: f, content: read.content, sha, isNew: false });
    }
  }
  plan.remove = [...known.values()].filter((k) => !seen.has(k.path)).map((k) => k.id);
  return plan;
}

/** Applies the touches and removals of `plan` and counts them; the parses are the parse stage's. */
export function applyCatalog(store: Store, plan: CatalogPlan, tally: IndexStats['files']): void {
  store.touchFiles(plan.touch);
  tally.touched = plan.touch.length;
  store.removeFiles(plan.remove);
  tally.removed = plan.remove.length;
}
