// What a test needs from the machine beyond npm's packages, and the words its skip is written in. A test (or
// suite) that needs a system package puts `needs(...).note` into its name; the run's last lines (the skip
// reporter, test/helpers/skip-reporter.ts) count the skips by that note and fail the run where everything must
// run (CI, or root after `npm install` could install everything).

import { detectSandbox } from '../../main/validate/sandbox.ts';
import { hasSystemPackage, SYSTEM_PACKAGES } from '../../scripts/system-packages.mjs';

export interface Need {
  /** True when something needed is missing: pass to `it.skipIf` / `describe.skipIf`. */
  skip: boolean;
  /** Appended to the test's name: empty when nothing is missing, else ` [skipped: needs system package X]`. */
  note: string;
}

/** The prefix every missing-package note starts with; the reporter reads the package names after it. */
export const NEEDS_PACKAGE = 'needs system package';

/** Whether the Debian packages `pkgs` (scripts/system-packages.mjs) are all present here. */
export function needs(...pkgs: string[]): Need {
  for (const pkg of pkgs) if (!SYSTEM_PACKAGES.some((p) => p.pkg === pkg)) throw new Error(`needs(): unknown system package "${pkg}"`);
  const missing = pkgs.filter((pkg) => !hasSystemPackage(pkg));
  return { skip: missing.length > 0, note: missing.length > 0 ? ` [skipped: ${NEEDS_PACKAGE} ${missing.join(', ')}]` : '' };
}

/** The note of a test that reads the benchmark data, where it is absent (not a package: such skips never fail a run). */
export const NO_BENCH = ' [skipped: no benchmark data (../shared/bench, or OPENCODER_BENCH_DIR)]';

/** A skip for a reason that is not a package (no bench data, running as root, another platform). */
export function unless(ok: boolean, why: string): Need {
  return { skip: !ok, note: ok ? '' : ` [skipped: ${why}]` };
}

/**
 * The strong (bubblewrap) sandbox: missing bubblewrap is a missing package; a bubblewrap that cannot run here
 * (no user namespaces in a container, say) is the machine's limit, named with the probe's reason.
 */
export async function needsStrongSandbox(): Promise<Need> {
  const pkg = needs('bubblewrap', 'util-linux');
  if (pkg.skip) return pkg;
  if (process.platform !== 'linux') return unless(false, `the strong sandbox needs Linux (this is ${process.platform})`);
  const info = await detectSandbox();
  return unless(info.strength === 'strong', `bubblewrap cannot run here: ${info.label}`);
}
