// How a verdict reads in a terminal: its status and reason, where and how it ran (sandbox, isolation and why,
// interpreter, what was withheld), the target and the expected tests, the static findings, and a line per test.

import { ISOLATION_PROMISE } from '../../../experiment/eval/scoring.ts';
import { bytes } from '../../../model/format.ts';
import { isolationOf, isolationReasonOf, type Verdict } from '../../../model/verdict.ts';

export function verdictLines(v: Verdict): string[] {
  const lines = [
    `Verdict: ${v.status.toUpperCase()} — ${v.reason}`,
    `Duration: ${v.durationMs} ms (limit ${v.timeoutMs} ms)${v.peakMemoryBytes !== null ? `; peak memory ${bytes(v.peakMemoryBytes)}` : ''}${v.cached ? ' (reused verdict of an identical candidate)' : ''}`,
    `Sandbox: ${v.sandbox.label}`,
    `Isolation: ${isolationOf(v)} — ${isolationReasonOf(v)}`,
    `  (${ISOLATION_PROMISE[isolationOf(v)]})`,
    `Interpreter: ${
      v.environment
        ? `${v.environment.python} (Python ${v.environment.version})${
            Object.keys(v.environment.env).length
              ? `, with ${Object.entries(v.environment.env)
                  .map(([k, x]) => `${k}=${x}`)
                  .join(' ')}`
              : ''
          }`
        : 'unknown (no report)'
    }`,
    ...(v.environment?.withheld?.length
      ? [
          `Withheld from the workspace (credentials, keys and task manifests): ${v.environment.withheld.slice(0, 6).join(', ')}${v.environment.withheld.length > 6 ? ` and ${v.environment.withheld.length - 6} more` : ''}`,
        ]
      : []),
    `Target: ${v.target ? `${v.target.expectedFile}, loaded from ${v.target.loadedFrom ?? 'nowhere (never imported)'}, called ${v.target.calls ?? 'an unknown number of'} time(s) while tests ran` : 'not observed'}`,
    `Expected tests: ${v.expectedTests ? `${v.expectedTests.length}, from ${v.expectedFrom === 'reference' ? "the reference's passing run" : "the task's list"}` : 'every test that runs'}`,
    ...(v.flaky ? [`Flaky: first ${v.flaky.outcomes[0]} (${v.flaky.reasons[0]}), then ${v.flaky.outcomes[1]} (${v.flaky.reasons[1]})`] : []),
    `Events: ${v.sandbox.events.length ? v.sandbox.events.map((e) => `${e.kind} (${e.detail})`).join('; ') : 'none'}`,
  ];
  if (v.findings.length) {
    lines.push(`Static findings (${v.findings.length}):`);
    for (const f of v.findings) lines.push(`  ${f.line !== undefined ? `line ${f.line}: ` : ''}${f.severity} ${f.kind}: ${f.message}`);
  } else {
    lines.push('Static findings: none');
  }
  const counts = new Map<string, number>();
  for (const t of v.tests) counts.set(t.outcome, (counts.get(t.outcome) ?? 0) + 1);
  lines.push(`Tests: ${v.tests.length ? [...counts].map(([k, n]) => `${n} ${k}`).join(', ') : 'none ran'}`);
  for (const t of v.tests) {
    const mark = t.outcome === 'passed' ? 'ok  ' : t.outcome === 'skipped' || t.outcome === 'expected-failure' ? 'skip' : 'FAIL';
    const msg = t.message ? ` — ${(t.message.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '').slice(0, 200)}` : '';
    lines.push(`  ${mark} ${t.id}${t.outcome === 'passed' ? '' : ` (${t.outcome})`}${t.expected ? '' : ' [not one of the task’s tests]'}${msg}`);
  }
  return lines;
}
