// Types of cli-layout.js (plain JavaScript, so that the `opencoder` command loads it without compiling anything).

export const PACKAGE_ROOT: string;
export const MANIFEST_FORMAT: number;
/** [path relative to the root (absolute when outside it), size, mtimeMs, sha256 of the content] */
export type ManifestInput = [string, number, number, string];
export interface CliManifest {
  format: number;
  root: string;
  /** The bundle's folder, under <base>/dist. */
  dir: string;
  /** The bundle's main file in that folder. */
  entry: string;
  builtAt: string;
  inputs: ManifestInput[];
}
export function userCacheDir(env?: NodeJS.ProcessEnv): string;
export function cacheBase(root: string, env?: NodeJS.ProcessEnv): string;
export function candidateBases(root: string, env?: NodeJS.ProcessEnv): string[];
export function manifestPath(base: string): string;
export function hashFile(file: string): string;
export function inputFile(root: string, rel: string): string;
export function checkBundle(
  base: string,
  root?: string,
):
  | { entry: string; manifest: CliManifest; rehashed: number; stale?: undefined }
  | { stale: string; entry?: undefined; manifest?: undefined; rehashed?: undefined };
export function buildBase(root?: string, env?: NodeJS.ProcessEnv): string;
export function findBundle(root?: string, env?: NodeJS.ProcessEnv): { entry: string | null; reasons: string[] };
