// Checking the folder a walk starts from: it must exist, be a folder, and be readable. The failures come back
// as a RepositoryRootError whose message is fit to show the user.
import { constants as fsConstants, promises as fsp, type Stats } from 'node:fs';
import path from 'node:path';
import { OpenCoderError } from '../model/errors.ts';

export type RepositoryRootErrorCode = 'not_found' | 'not_a_directory' | 'permission_denied' | 'unreadable';

/** The repository folder cannot be walked; `reason` says why and the message says it to the user. */
export class RepositoryRootError extends OpenCoderError {
  readonly reason: RepositoryRootErrorCode;
  readonly path: string;
  constructor(reason: RepositoryRootErrorCode, rootPath: string, message: string, cause?: unknown) {
    super(reason === 'not_found' ? 'not-found' : 'invalid-input', message, { cause });
    this.reason = reason;
    this.path = rootPath;
  }
}

/** The `code` of a Node.js system error (ENOENT, EACCES, …), if it has one. */
export function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

/** An error as one line for a skip's detail or a message: its code, then its message. */
export function errDetail(err: unknown): string {
  const code = errCode(err);
  const msg = err instanceof Error ? err.message : String(err);
  return code !== undefined && !msg.startsWith(code) ? `${code}: ${msg}` : msg;
}

/**
 * Checks that `root` is a folder the walk can read and returns its real path (symlinks resolved).
 * Throws RepositoryRootError with a message fit for the user otherwise.
 */
export async function checkRepositoryRoot(root: string): Promise<string> {
  if (typeof root !== 'string' || root.trim() === '') {
    throw new RepositoryRootError('not_found', String(root), 'No repository folder was given (the path is empty).');
  }
  const abs = path.resolve(root);
  let st: Stats;
  try {
    st = await fsp.stat(abs);
  } catch (err) {
    const code = errCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new RepositoryRootError('not_found', abs, `The repository folder does not exist: ${abs}`, err);
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new RepositoryRootError('permission_denied', abs, `Cannot read the repository folder ${abs}: permission denied.`, err);
    }
    if (code === 'ELOOP') {
      throw new RepositoryRootError('unreadable', abs, `The repository path ${abs} is a symlink loop.`, err);
    }
    throw new RepositoryRootError('unreadable', abs, `Cannot read the repository folder ${abs}: ${errDetail(err)}`, err);
  }
  if (!st.isDirectory()) {
    const what = st.isFile() ? 'a file' : 'a special file (not a regular file or folder)';
    throw new RepositoryRootError('not_a_directory', abs, `The repository path ${abs} is ${what}, not a folder.`);
  }
  let real: string;
  try {
    real = await fsp.realpath(abs);
    await fsp.access(real, fsConstants.R_OK | fsConstants.X_OK);
    const dir = await fsp.opendir(real);
    await dir.close();
  } catch (err) {
    const code = errCode(err);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new RepositoryRootError('permission_denied', abs, `Cannot read the repository folder ${abs}: permission denied.`, err);
    }
    throw new RepositoryRootError('unreadable', abs, `Cannot read the repository folder ${abs}: ${errDetail(err)}`, err);
  }
  return real;
}
