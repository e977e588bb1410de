// Why the repository walk left a file or folder out, in words: each skip reason the index records (a key such as
// `too_large`) with the phrase every place that shows it prints — the Repository view's skipped files and counts,
// and the CLI's index and status lines — so a person never reads a raw key. Plain data and functions, shared by
// the engine, the CLI and the renderer.

/** The walk's default size limit: larger files are skipped as `too_large` (an include pattern can force them in). */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** Every reason the walk records, in the order a summary lists them when counts tie. */
export const SKIP_REASONS = [
  'ignored',
  'vcs',
  'dependencies',
  'virtualenv',
  'cache',
  'build_output',
  'binary',
  'minified',
  'generated',
  'too_large',
  'unreadable',
  'special_file',
  'symlink_outside',
  'symlink_loop',
  'symlink_dangling',
  'duplicate_symlink',
] as const;

export type SkipReason = (typeof SKIP_REASONS)[number];

/** Each reason as a short phrase without an article, so it reads both alone and as a count's label. */
const PHRASES: Record<Exclude<SkipReason, 'too_large'>, string> = {
  ignored: 'ignored by .gitignore or .git/info/exclude',
  vcs: 'version-control data (.git, .hg, .svn, .bzr)',
  dependencies: 'installed dependencies (node_modules, site-packages, …)',
  virtualenv: 'virtual environment',
  cache: 'tool cache (__pycache__, .pytest_cache, …)',
  build_output: 'build output (dist, build, target, …)',
  binary: 'binary data',
  minified: 'minified code',
  generated: 'generated code',
  unreadable: 'could not be read',
  special_file: 'not a regular file (FIFO, socket or device)',
  symlink_outside: 'link pointing outside the repository',
  symlink_loop: 'link that loops back on itself',
  symlink_dangling: 'link to a missing target',
  duplicate_symlink: 'link to a file or folder indexed under its own path',
};

/** `1 MiB`, `512 KiB`, `1.5 MiB`, `900 bytes`: a size limit as a person reads it. */
export function sizeText(bytes: number): string {
  const unit = (n: number, name: string) => `${Number.isInteger(n) ? n : n.toFixed(1).replace(/\.0$/, '')} ${name}`;
  if (bytes >= 1024 * 1024) return unit(bytes / (1024 * 1024), 'MiB');
  if (bytes >= 1024) return unit(bytes / 1024, 'KiB');
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/** The size limit a `too_large` skip was measured against: read from its detail (`N bytes > limit M`), else the default. */
export function sizeLimitOf(detail: string | null | undefined): number {
  const m = /limit (\d+)/.exec(detail ?? '');
  const n = m ? Number(m[1]) : NaN;
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_MAX_FILE_BYTES;
}

/**
 * Why a path was skipped, as a phrase: `larger than the 1 MiB limit`, `generated code`, …. `detail` (the skip's
 * own detail) gives a `too_large` skip its actual limit. A key this table does not know reads as its words.
 */
export function skipReasonText(reason: string, detail?: string | null): string {
  if (reason === 'too_large') return `larger than the ${sizeText(sizeLimitOf(detail))} limit`;
  return (PHRASES as Record<string, string>)[reason] ?? reason.replace(/[_-]+/g, ' ').trim();
}

/** A skipped file's own detail in words where the walk wrote it for a program: `2.3 MiB (2406112 bytes)` for a size skip. */
export function skipDetailText(reason: string, detail: string | null | undefined): string {
  if (!detail) return '';
  const m = reason === 'too_large' ? /^(\d+) bytes > limit \d+$/.exec(detail) : null;
  return m ? `${sizeText(Number(m[1]))} (${Number(m[1]).toLocaleString('en-US')} bytes)` : detail;
}

/**
 * Skip counts by reason as one line: `generated code (3); larger than the 1 MiB limit (1)`, most first (ties in
 * SKIP_REASONS order); `empty` when there are none.
 */
export function skipCountsText(byReason: Record<string, number>, empty = 'none'): string {
  const order = (r: string) => {
    const i = (SKIP_REASONS as readonly string[]).indexOf(r);
    return i < 0 ? SKIP_REASONS.length : i;
  };
  const parts = Object.entries(byReason)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || order(a[0]) - order(b[0]) || a[0].localeCompare(b[0]))
    .map(([r, n]) => `${skipReasonText(r)} (${n.toLocaleString('en-US')})`);
  return parts.length ? parts.join('; ') : empty;
}
