// Which verdicts the infrastructure decided rather than the candidate (Verdict.infrastructure): a sandbox that
// could not start, our harness crashing outside the candidate's process, a broken task. A candidate's own faults
// (its crash, a timeout, a forged "bwrap:" line on stderr after the harness reported) stay the candidate's.

import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SandboxInfo } from '../../main/model/verdict.ts';
import { type SandboxRunResult } from '../../main/validate/sandbox.ts';
import { createValidator } from '../../main/validate/validator.ts';
import { buildVerdict } from '../../main/validate/verdict-report.ts';
import type { TaskPlan } from '../../main/validate/task-plan.ts';
import { GOOD, templateTask } from './helpers.ts';

const NONCE = 'ab'.repeat(32);
const INFO: SandboxInfo = { strength: 'strong', label: 'strong: test', uid: null, tools: { bwrap: null, setpriv: null, prlimit: null, python: 'python3' } };
const PLAN = {
  task: templateTask('infra/unit'),
  kind: 'template',
  mode: 'program',
  testArgs: [],
  expectedTests: ['test_0'],
  target: { kind: 'template', template: '', placeholder: '', qualname: 'f', signature: null },
  perTestTimeoutS: 5,
  repo: null,
  timeoutMs: 10_000,
  facts: null,
  env: {},
  pythonPath: [],
  python: null,
} as unknown as TaskPlan;

/** Authenticated report-channel lines, as the harness writes them under the run's key. */
function channel(...records: object[]): Buffer {
  const key = Buffer.from(NONCE, 'hex');
  return Buffer.from(
    records
      .map((r) => {
        const payload = JSON.stringify(r);
        return `${createHmac('sha256', key).update(payload).digest('hex')} ${payload}\n`;
      })
      .join(''),
  );
}

function ran(extra: Partial<SandboxRunResult>): SandboxRunResult {
  return {
    exit: { code: 1, signal: null },
    stdout: '',
    stderr: '',
    channel: Buffer.alloc(0),
    durationMs: 5,
    events: [],
    killedBy: null,
    outputBytes: 0,
    ...extra,
  };
}

const verdictOf = (r: SandboxRunResult) => buildVerdict(PLAN, r, NONCE, 10_000, INFO);
const STATIC = { t: 'static', findings: [], blocking: false };

describe('verdicts the infrastructure decided', () => {
  it('a sandbox that never started (bwrap setup error, nothing authenticated) is the sandbox’s fault', () => {
    const v = verdictOf(ran({ stderr: 'bwrap: Creating new namespace failed: No space left on device\n' }));
    expect(v.status).toBe('error');
    expect(v.infrastructure).toEqual({ cause: 'sandbox', detail: 'the sandbox failed: bwrap: Creating new namespace failed: No space left on device' });
    const spawn = verdictOf(
      ran({ exit: { code: null, signal: null }, events: [{ kind: 'sandbox-failure', detail: 'could not start /usr/bin/bwrap: ENOENT' }] }),
    );
    expect(spawn.infrastructure?.cause).toBe('sandbox');
  });

  it('our harness crashing, or a broken task, is ours; the runner’s own error (candidate code ran there) is the candidate’s', () => {
    const harness = verdictOf(ran({ channel: channel(STATIC, { t: 'harness-error', message: 'Traceback…\nOSError: [Errno 5] I/O error' }) }));
    expect(harness.infrastructure).toEqual({ cause: 'harness', detail: 'harness error: OSError: [Errno 5] I/O error' });
    const task = verdictOf(ran({ channel: channel({ t: 'task-error', message: 'the check template has no placeholder' }) }));
    expect(task.infrastructure?.cause).toBe('workspace');
    const runner = verdictOf(ran({ channel: channel(STATIC, { t: 'harness-error', message: 'KeyboardInterrupt', origin: 'runner' }) }));
    expect(runner.status).toBe('error');
    expect(runner.infrastructure).toBeUndefined();
  });

  it('a candidate’s own crash, a timeout, or a forged bwrap line after the harness reported stay the candidate’s', () => {
    const forged = verdictOf(ran({ channel: channel(STATIC), stderr: 'bwrap: pretend the sandbox broke\n' }));
    expect(forged.status).toBe('error');
    expect(forged.infrastructure).toBeUndefined();
    const earlyExit = verdictOf(ran({ channel: channel(STATIC, { t: 'runner-ended', code: 0, results: [] }) }));
    expect(earlyExit.infrastructure).toBeUndefined();
    const timeout = verdictOf(ran({ killedBy: 'wall-timeout', exit: { code: null, signal: 'SIGKILL' } }));
    expect(timeout.status).toBe('timeout');
    expect(timeout.infrastructure).toBeUndefined();
  });

  it.skipIf(process.platform !== 'linux')(
    `a real sandbox that stops starting mid-run gives an infrastructure verdict, not a failed candidate${process.platform === 'linux' ? '' : ' [skipped: not Linux]'}`,
    async () => {
      const real = ['/usr/bin/bwrap', '/bin/bwrap'].find((p) => fs.existsSync(p));
      if (!real) return console.warn('[validate] no bubblewrap here: the live sandbox-failure check is skipped');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-breaking-bwrap-'));
      try {
        fs.chmodSync(dir, 0o755); // setpriv runs it as uid 65534
        const fake = path.join(dir, 'bwrap');
        // Works until the marker file appears, then fails like a bwrap that cannot create its namespaces.
        fs.writeFileSync(
          fake,
          `#!/bin/sh\nif [ -e "${dir}/broken" ]; then echo "bwrap: Creating new namespace failed: No space left on device" >&2; exit 1; fi\nexec ${real} "$@"\n`,
          { mode: 0o755 },
        );
        // Cold runs: each starts a sandbox of its own (a warm server started before the break would go on serving;
        // a warm server that dies mid-run is warm.test.ts's case).
        const v = await createValidator({ sandbox: { bwrap: fake }, warm: false });
        try {
          if (v.sandbox.strength !== 'strong') return console.warn(`[validate] strong sandbox unavailable here: ${v.sandbox.fallbackReason}`);
          const task = templateTask('infra/live');
          expect((await v.validate(task, GOOD)).status).toBe('passed');
          fs.writeFileSync(path.join(dir, 'broken'), '');
          const broken = await v.validate(task, 'def f(x):\n    return x + 1 - 0\n');
          expect(broken.status).toBe('error');
          expect(broken.infrastructure).toMatchObject({ cause: 'sandbox', detail: expect.stringMatching(/No space left on device/) });
        } finally {
          v.close();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
