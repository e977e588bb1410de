// The CLI says where a verdict was decided: `validate` prints each verdict's isolation (a verdict without one reads
// as in-process), and the run summary counts flaky and in-process verdicts apart per condition, as the reports do.

import { describe, expect, it } from 'vitest';
import { verdictsApartLines } from '../../main/host/cli/text/run-text.ts';
import { verdictLines } from '../../main/host/cli/text/validate-text.ts';
import { displayNames } from '../../main/experiment/report/format.ts';
import type { Verdict } from '../../main/model/verdict.ts';
import { buildReportFixture, TASK_IDS } from '../helpers/report-fixture.ts';

const VERDICT: Verdict = {
  taskId: 't1',
  status: 'passed',
  reason: 'all 3 expected tests passed',
  findings: [],
  tests: [],
  expectedTests: null,
  durationMs: 120,
  timeoutMs: 10_000,
  peakMemoryBytes: null,
  sandbox: { strength: 'strong', label: 'strong: bubblewrap', events: [] },
  exit: { code: 0, signal: null },
  stdout: '',
  stderr: '',
  cached: false,
  expectedFrom: null,
  target: null,
  environment: null,
  flaky: null,
};

describe('opencoder validate: the verdict’s isolation', () => {
  const isolation = (v: Verdict) => {
    const lines = verdictLines(v);
    const at = lines.findIndex((l) => l.startsWith('Isolation: '));
    return lines.slice(at, at + 2);
  };

  it('prints where the verdict was decided and why, then what that promises, right after the sandbox', () => {
    const reason = 'the reference passes every test the task names isolated';
    expect(isolation({ ...VERDICT, isolation: 'isolated', isolationReason: reason })).toEqual([
      `Isolation: isolated — ${reason}`,
      '  (the tests ran in a process the candidate never ran in and only data crossed, so a wrong candidate can pass only by returning what the tests accept)',
    ]);
    expect(isolation({ ...VERDICT, isolation: 'in-process', isolationReason: "in-process by the validator's setting (isolation: 'in-process')" })).toEqual([
      "Isolation: in-process — in-process by the validator's setting (isolation: 'in-process')",
      '  (the candidate ran inside the test process under hardening, and hardening inside one interpreter is a best effort, never a guarantee)',
    ]);
    const lines = verdictLines({ ...VERDICT, isolation: 'isolated' });
    expect(lines.findIndex((l) => l.startsWith('Isolation: '))).toBe(lines.findIndex((l) => l.startsWith('Sandbox: ')) + 1);
  });

  it('reads a verdict without isolation as in-process, and one without a reason as not recorded', () => {
    expect(isolation(VERDICT)[0]).toBe('Isolation: in-process — not recorded (stored before the reason was kept)');
    expect(isolation(VERDICT)[1]).toEqual(isolation({ ...VERDICT, isolation: 'in-process' })[1]);
  });
});

describe('run summary: verdicts counted apart', () => {
  it('has a line per condition with flaky or in-process verdicts, with the counts the reports show', () => {
    const model = buildReportFixture({ factorial: false });
    const lines = verdictsApartLines(model, displayNames(model));
    expect(lines).toEqual([
      'Baseline RAG: 1 of 30 candidate verdicts and 1 of 6 selected outputs flaky, on 1 task(s): repo-a/parse-args',
      `OpenCoder (uncertainty-aware): 3 of 30 candidate verdicts and 0 of 6 selected outputs flaky, on 2 task(s): repo-b/retry, backoff, ${TASK_IDS[5]}`,
      'Baseline RAG: 2 of 30 candidate verdicts and 1 of 6 selected outputs in-process (93.3 % of candidate verdicts isolated), on 1 task(s): repo-a/fmt_date',
      'OpenCoder (uncertainty-aware): 1 of 30 candidate verdicts and 1 of 6 selected outputs in-process (96.7 % of candidate verdicts isolated), on 2 task(s): repo-a/fmt_date, repo-c/json "merge"',
      // The leak audit's line for every audited condition, with none as well.
      'Baseline RAG: leak suspects: 0 among 180 evidence items of 6 of 6 tasks audited (dropped before the prompt).',
      'RAG + verify + repair: leak suspects: 0 among 180 evidence items of 6 of 6 tasks audited (dropped before the prompt).',
      'OpenCoder (uncertainty-aware): leak suspects: 1 among 180 evidence items of 6 of 6 tasks audited (dropped before the prompt), on 1 task(s): repo-a/fmt_date',
    ]);
  });

  it('names the first ten task ids of a long list and points to the report for the rest', () => {
    const model = buildReportFixture({ flaky: false, factorial: false });
    const c = model.conditions[0]!;
    const ids = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    c.inProcess = { ...c.inProcess, taskIds: ids };
    const [line] = verdictsApartLines({ ...model, conditions: [c] }, displayNames(model));
    expect(line).toMatch(/, on 12 task\(s\): t00, t01, .*, t09 and 2 more \(the report lists them all\)$/);
    expect(line).not.toContain('t10');
  });

  it('says nothing of verdicts when every one was isolated and none flaky; conditions not audited for leaks get no line', () => {
    const model = buildReportFixture({ flaky: false, inProcess: false });
    const lines = verdictsApartLines(model, displayNames(model));
    expect(lines.filter((l) => !/leak suspects/.test(l))).toEqual([]);
    // The factorial run was stored before the audit: no line for its cells.
    expect(lines).toHaveLength(3);
  });
});
