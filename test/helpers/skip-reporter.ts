// The run's last lines: how many tests were skipped, and why, grouped by the `[skipped: …]` note in their names
// (test/helpers/system.ts). A skip for a missing system package names the package and the command that installs
// it. Where everything must run, such a skip fails the run: under CI (the CI variable set), and as root on Linux
// unless OPENCODER_SKIP_SYSTEM_SETUP says the system was meant to be left alone (as root, `npm install`
// installs what is missing).

import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';
import { installCommand, SKIP_ENV, SYSTEM_PACKAGES } from '../../scripts/system-packages.mjs';
import { NEEDS_PACKAGE } from './system.ts';

// `[skipped: why]` (test/helpers/system.ts), or the older `(skipped: why)` some names carry.
const NOTE = /\[skipped: ([^\]]+)\]|\(skipped: ([^)]+)\)/;
const NO_REASON = 'no reason in the test’s name';
const FILTERED = 'left out by the name filter (-t)';
const PARENT_FAILED = 'not run: its suite or file failed (see the failures above)';

/** Whether a suite or the file around the test failed (a failing beforeAll leaves its tests reported as skipped). */
function parentFailed(test: TestCase): boolean {
  for (let p: TestCase['parent'] | undefined = test.parent; p; p = p.type === 'module' ? undefined : p.parent) {
    if (p.state() === 'failed') return true;
  }
  return false;
}

function strict(): { on: boolean; why: string } {
  const ci = process.env.CI;
  if (ci && ci !== 'false' && ci !== '0') return { on: true, why: 'CI is set: every test must run' };
  if (process.platform === 'linux' && process.getuid?.() === 0 && !process.env[SKIP_ENV])
    return { on: true, why: `running as root, where \`npm install\` installs the system packages (set ${SKIP_ENV}=1 to allow these skips)` };
  return { on: false, why: '' };
}

export default class SkipReporter implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    // With -t (a name filter) every test it leaves out is reported skipped: those are not skips to account for.
    this.filtered = !!vitest.config.testNamePattern;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, number>();
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        if (test.result().state !== 'skipped') continue;
        const m = NOTE.exec(test.fullName);
        const reason = (m && (m[1] ?? m[2])) ?? (parentFailed(test) ? PARENT_FAILED : this.filtered ? FILTERED : NO_REASON);
        byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
      }
    }
    const total = [...byReason.values()].reduce((a, b) => a + b, 0);
    const out = process.stdout;
    if (total === 0) {
      out.write('\nSkipped: none\n');
      return;
    }
    const missing = new Set<string>();
    const lines = [...byReason.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    out.write(`\nSkipped ${total} test${total === 1 ? '' : 's'}:\n`);
    for (const [reason, n] of lines) {
      out.write(`  ${String(n).padStart(4)}  ${reason}\n`);
      if (reason.startsWith(NEEDS_PACKAGE)) for (const pkg of reason.slice(NEEDS_PACKAGE.length).split(',')) missing.add(pkg.trim());
    }
    if (missing.size === 0) return;
    const pkgs = [...missing];
    for (const pkg of pkgs) {
      const entry = SYSTEM_PACKAGES.find((p) => p.pkg === pkg);
      out.write(`  ${pkg}: ${entry?.why ?? 'unknown package'}\n`);
    }
    out.write(`  install: ${installCommand(pkgs)}\n`);
    const s = strict();
    if (s.on) {
      out.write(`FAIL: ${pkgs.length} system package${pkgs.length === 1 ? '' : 's'} missing (${pkgs.join(', ')}) and ${s.why}\n`);
      process.exitCode = 1;
    }
  }
}
