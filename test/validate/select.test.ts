// Selection and repair with scripted candidates, grouping and repairs, through the real validator.

import { beforeAll, describe, expect, it, vi } from 'vitest';
import { makeConfig } from '../../main/model/config.ts';
import { selectCandidate, type RepairRequest } from '../../main/validate/select.ts';
import { createValidator, type Validator } from '../../main/validate/validator.ts';
import { GOOD, templateTask } from './helpers.ts';

const WRONG = 'def f(x):\n    return x\n';
const WRONG2 = 'def f(x):\n    return x + 2\n';
const PARTIAL = 'def f(x):\n    return 2 if x == 1 else x\n'; // passes test_0 only
const SLOW = 'import time\n\ndef f(x):\n    time.sleep(60)\n';
const GOOD2 = 'def f(x):\n    return 1 + x\n';
const task = templateTask('select/f');
const evidence = 'API: OFFSET = 1 (module constant)';
let validator: Validator;

beforeAll(async () => {
  validator = await createValidator({ validation: { timeoutFloorMs: 30_000 } });
});

const noGroup = vi.fn(async () => {
  throw new Error('grouping must not be called when a candidate passes');
});
const noRepair = vi.fn(async (): Promise<string> => {
  throw new Error('repair must not be called when a candidate passes');
});

describe('selection', () => {
  it('returns the earliest passing candidate in generation order, with no grouping or repair', async () => {
    const s = await selectCandidate({ task, candidates: [WRONG, GOOD, GOOD2], validator, group: noGroup, repair: noRepair });
    expect(s).toMatchObject({ origin: 'candidate', candidateIndex: 1, passed: true, code: GOOD, repairRound: null });
    expect(s.verdict!.status).toBe('passed');
    expect(noGroup).not.toHaveBeenCalled();
    expect(noRepair).not.toHaveBeenCalled();
    expect(s.trace.steps.filter((x) => x.kind === 'validate').map((x) => (x as { index: number }).index)).toEqual([0, 1]);
    expect(s.trace.steps.find((x) => x.kind === 'selected')).toMatchObject({ index: 1 });
  });

  it('returns once the earliest passing candidate is known and cancels the slower ones after it', async () => {
    const s = await selectCandidate({ task, candidates: [WRONG2, GOOD2 + '# a\n', SLOW, GOOD + '# b\n'], validator, group: noGroup, repair: noRepair });
    expect(s.candidateIndex).toBe(1);
    // The sleeping candidate was not waited for: it was cancelled, not run to its time limit.
    expect(s.trace.steps.filter((x) => x.kind === 'cancelled').map((x) => (x as { index: number }).index)).toContain(2);
  });

  it('validates byte-identical candidates once; a candidate differing only in whitespace gets its own verdict', async () => {
    const dup = '\ndef f(x):\n    return x - 7   \n';
    const s = await selectCandidate({
      task,
      candidates: [dup, dup, dup.trim() + '\n', GOOD + '# c\n'],
      validator,
      group: noGroup,
      repair: noRepair,
    });
    const steps = s.trace.steps.filter((x) => x.kind === 'validate') as { index: number; cached: boolean }[];
    expect(steps.map((x) => x.cached)).toEqual([false, true, false, false]);
  });

  it('with verification switched off, the normalised mode is the output, unvalidated (or candidate 1 with unverifiedOutput first)', async () => {
    const validate = vi.fn(validator.validate.bind(validator));
    const mode = await selectCandidate({
      task,
      candidates: [WRONG, GOOD, GOOD + '# same\n'],
      validator: { validate },
      group: async () => [[0], [1, 2]],
      repair: noRepair,
      config: makeConfig({ validation: { verify: false } }),
    });
    expect(mode).toMatchObject({ candidateIndex: 1, passed: false, verdict: null, code: GOOD });
    expect(mode.trace.steps[0]!.kind).toBe('verify-disabled');
    expect(validate).not.toHaveBeenCalled();
    const first = await selectCandidate({
      task,
      candidates: [WRONG, GOOD, GOOD],
      validator,
      group: async () => [[0], [1, 2]],
      repair: noRepair,
      config: makeConfig({ validation: { verify: false, unverifiedOutput: 'first' } }),
    });
    expect(first).toMatchObject({ candidateIndex: 0, code: WRONG });
    // A config frozen before the option existed keeps its behaviour: candidate 1.
    const legacy = makeConfig({ validation: { verify: false } });
    delete legacy.validation.unverifiedOutput;
    expect(
      (await selectCandidate({ task, candidates: [WRONG, GOOD, GOOD], validator, group: async () => [[0], [1, 2]], repair: noRepair, config: legacy }))
        .candidateIndex,
    ).toBe(0);
  });
});

describe('repair', () => {
  it('repairs the earliest member of the largest group; round 2 gets round 1’s output and its failures', async () => {
    const requests: RepairRequest[] = [];
    const group = vi.fn(async () => [[0], [1, 3], [2]]);
    const repair = vi.fn(async (req: RepairRequest) => {
      requests.push(req);
      return req.round === 1 ? PARTIAL : GOOD + '# repaired\n';
    });
    const s = await selectCandidate({
      task,
      candidates: [WRONG, WRONG2, 'def f(x):\n    return None\n', WRONG2 + '# same idea\n'],
      validator,
      group,
      repair,
      evidence,
    });
    expect(group).toHaveBeenCalledOnce();
    expect(repair).toHaveBeenCalledTimes(2);
    expect(s).toMatchObject({ origin: 'repair', candidateIndex: 1, repairRound: 2, passed: true });
    expect(requests[0]).toMatchObject({ round: 1, code: WRONG2, evidence, task });
    expect(requests[0]!.failingOutput).toMatch(/test_0: failed/);
    expect(requests[0]!.failingOutput).toMatch(/AssertionError/);
    expect(requests[1]).toMatchObject({ round: 2, code: PARTIAL });
    expect(requests[1]!.failingOutput).toMatch(/test_1: failed/);
    expect(requests[1]!.failingOutput).not.toMatch(/test_0: failed/);
    const kinds = s.trace.steps.map((x) => x.kind);
    expect(kinds).toEqual(['validate', 'validate', 'validate', 'validate', 'group', 'repair', 'repair', 'final']);
    expect(s.trace.steps.find((x) => x.kind === 'group')).toMatchObject({ representative: 1, chosen: [1, 3] });
  });

  it('stops at the first passing repair; static findings reach the repairer', async () => {
    const repair = vi.fn(async (_req: RepairRequest) => GOOD + '# fixed in round 1\n');
    const broken = 'def f(x):\n    return x + OFFSETT\n';
    const s = await selectCandidate({ task, candidates: [broken], validator, group: async () => [[0]], repair, evidence });
    expect(repair).toHaveBeenCalledOnce();
    const req = repair.mock.calls[0]![0];
    expect(req.staticFindings).toEqual([expect.objectContaining({ kind: 'undefined-name', name: 'OFFSETT' })]);
    expect(s).toMatchObject({ origin: 'repair', repairRound: 1, passed: true });
  });

  it('after two failed rounds returns the last repair (Eq. 10), or with most-tests the version that passed the most tests', async () => {
    const last = await selectCandidate({
      task,
      candidates: [WRONG, WRONG2],
      validator,
      group: async () => [[0, 1]],
      repair: async (r) => (r.round === 1 ? PARTIAL : WRONG2),
      evidence,
    });
    expect(last).toMatchObject({ passed: false, origin: 'repair', repairRound: 2, code: WRONG2, candidateIndex: 0 });
    expect(last.trace.steps.at(-1)).toMatchObject({ kind: 'final', note: 'no repair passed; the last repair (round 2) is the output' });
    const most = makeConfig({ validation: { afterFailedRepairs: 'most-tests' } });
    const s = await selectCandidate({
      task,
      candidates: [WRONG, WRONG2],
      validator,
      group: async () => [[0, 1]],
      repair: async (r) => (r.round === 1 ? PARTIAL : WRONG),
      evidence,
      config: most,
    });
    expect(s).toMatchObject({ passed: false, origin: 'repair', repairRound: 1, code: PARTIAL, candidateIndex: 0 });
    expect(s.repairs.map((r) => r.verdict!.status)).toEqual(['failed', 'failed']);
    const tie = await selectCandidate({ task, candidates: [WRONG], validator, group: async () => [[0]], repair: async () => WRONG2, config: most });
    expect(tie).toMatchObject({ passed: false, origin: 'candidate', code: WRONG, repairRound: null });
    expect(tie.trace.steps.at(-1)).toMatchObject({ kind: 'final', passed: false });
  });

  it('a backend that cannot repair gets no round, and none is counted', async () => {
    const s = await selectCandidate({ task, candidates: [WRONG, WRONG2], validator, group: async () => [[0, 1]], repair: null });
    expect(s.repairs).toEqual([]);
    expect(s).toMatchObject({ origin: 'candidate', candidateIndex: 0, passed: false });
    expect(s.trace.steps.map((x) => x.kind)).toContain('repair-unavailable');
    expect(s.trace.steps.some((x) => x.kind === 'repair' || x.kind === 'repair-error')).toBe(false);
  });

  it('ties between groups go to the earliest; a failing repairer or grouper is recorded, not fatal', async () => {
    const seen: string[] = [];
    const s = await selectCandidate({
      task,
      candidates: [WRONG, WRONG2, 'def f(x):\n    return 0\n'],
      validator,
      group: async () => [[2], [1], [0]],
      repair: async (r) => {
        seen.push(r.code);
        throw new Error('model unavailable');
      },
    });
    expect(seen).toEqual([WRONG]);
    expect(s.trace.steps.find((x) => x.kind === 'repair-error')).toMatchObject({ round: 1, message: 'model unavailable' });
    expect(s).toMatchObject({ candidateIndex: 0, passed: false });
    const g = await selectCandidate({
      task,
      candidates: [WRONG2, WRONG],
      validator,
      group: async () => Promise.reject(new Error('no embedder')),
      repair: async () => GOOD,
    });
    expect(g.trace.steps.find((x) => x.kind === 'group')!).toMatchObject({ representative: 0 });
    expect(g.passed).toBe(true);
  });

  it('repairRounds 0 means no repair at all', async () => {
    const repair = vi.fn(async () => GOOD);
    const s = await selectCandidate({
      task,
      candidates: [WRONG],
      validator,
      group: async () => [[0]],
      repair,
      config: makeConfig({ validation: { repairRounds: 0 } }),
    });
    expect(repair).not.toHaveBeenCalled();
    expect(s.passed).toBe(false);
  });
});
