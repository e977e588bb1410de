// The folders the user allowed OpenCoder to open from the UI ("Allow this folder" in the Repository view, or a
// folder chosen in Electron's folder picker), remembered in allowed-folders.json beside the settings file so they
// stay allowed after a restart, as `opencoder serve --allow DIR` does for one session. A system or secrets
// folder (the manifest check's rule, benchmarks/manifest-file.ts repoPlaceProblem) and the file system's root are refused.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { repoPlaceProblem } from '../benchmarks/manifest-file.ts';
import { canonicalPath } from '../util/paths.ts';

const FileSchema = z.object({ version: z.literal(1), folders: z.array(z.string().min(1)) });

/** Where the allowed folders are remembered, in a user data folder. */
export function allowedFoldersFileIn(dataDir: string): string {
  return path.join(dataDir, 'allowed-folders.json');
}

/** The remembered folders, and a notice when the file could not be read (then none are allowed from it). */
export function loadAllowedFolders(file: string): { folders: string[]; notice: string | null } {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { folders: [], notice: null };
    return { folders: [], notice: `Cannot read the allowed folders ${file} (${(err as Error).message}); allow them again from the Repository view.` };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return {
      folders: [],
      notice: `The allowed folders file ${file} is not valid JSON (${(err as Error).message}); allow them again from the Repository view.`,
    };
  }
  const parsed = FileSchema.safeParse(json);
  if (!parsed.success) return { folders: [], notice: `The allowed folders file ${file} is not a list of folders; allow them again from the Repository view.` };
  // A remembered folder that has since become a forbidden place (a symlink moved) is not allowed again.
  return { folders: parsed.data.folders.filter((f) => allowProblem(f) === null), notice: null };
}

/** Why `folder` may not be allowed (not a folder, the root, a system or secrets folder), or null when it may. */
export function allowProblem(folder: string): string | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(folder);
  } catch {
    return `${folder} does not exist`;
  }
  if (!stat.isDirectory()) return `${folder} is not a folder`;
  // The manifest rule, with the folder as its own "manifest folder": only the root and the forbidden places remain.
  const problem = repoPlaceProblem(folder, folder);
  return problem ? `${folder} ${problem}` : null;
}

/** Adds a folder to the remembered ones (canonical path, once) and writes the file atomically. */
export function rememberAllowedFolder(file: string, folder: string, write: (file: string, content: string) => void): string[] {
  const c = canonicalPath(folder);
  const { folders } = loadAllowedFolders(file);
  const next = folders.includes(c) ? folders : [...folders, c];
  write(file, JSON.stringify({ version: 1, folders: next }, null, 2) + '\n');
  return next;
}
