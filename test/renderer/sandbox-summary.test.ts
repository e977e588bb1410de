// The sandbox mode in plain words (renderer/src/lib/sandbox.ts), from the labels main/validate/sandbox.ts writes.
import { describe, expect, it } from 'vitest';
import { sandboxSummary } from '../../renderer/src/lib/sandbox.ts';

describe('the sandbox notice', () => {
  it('advises what would give the strong mode, from the weak mode’s reason', () => {
    const missing = sandboxSummary('weak: bubblewrap (bwrap) is not installed — rlimits, clean environment; NO filesystem or network isolation');
    expect(missing.message).toContain('Install bubblewrap (apt-get install bubblewrap)');
    expect(missing.message).not.toContain('it runs as you');
    expect(missing.message).toContain('reach the network');
    // Weak mode as root: each run has a network namespace of its own, and the notice does not say it reaches the network.
    const root = sandboxSummary(
      'weak: bubblewrap (bwrap) is not installed — rlimits, clean environment, own PID namespace, own network namespace (no network, loopback its own); NO filesystem isolation',
    );
    expect(root.message).toContain('it has no network');
    expect(root.message).not.toContain('reach the network');
    const chosen = sandboxSummary('weak: weak mode chosen by OPENCODER_SANDBOX — rlimits; NO filesystem or network isolation');
    expect(chosen.message).toContain('Set the sandbox to auto in Settings');
    expect(chosen.message).not.toContain('Install bubblewrap');
    const mac = sandboxSummary(
      'weak: bubblewrap sandboxing needs Linux (this is darwin) — rlimits, and the candidate runs as this user, so it can change what the tests read',
    );
    expect(mac.message).toContain('it runs as you');
    expect(mac.message).toContain('bubblewrap sandboxing needs Linux (this is darwin)');
    expect(mac.message).toContain('The strong sandbox needs Linux with bubblewrap.');
    expect(mac.message).not.toContain('apt-get');
  });

  it('names strong and unavailable plainly', () => {
    expect(sandboxSummary('strong: bubblewrap — no network').short).toBe('sandbox: strong');
    const none = sandboxSummary('unavailable: the strong sandbox is required but unavailable: bubblewrap (bwrap) is not installed');
    expect(none.mode).toBe('unavailable');
    expect(none.message).toMatch(/^No sandbox can run here \(the strong sandbox is required.*candidates cannot be validated/);
  });
});
