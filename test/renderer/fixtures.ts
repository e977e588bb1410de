// A small, hand-written TaskResult with full detail: two steps, items of all three sources with every fate an
// item can meet in fusion (fused, outside the top K, duplicate, below the keep fraction, removed by API
// refinement), five candidates and two repair rounds.

import type { EvidenceRow, TaskResult } from '../../contract/index.ts';

const sig = (relevance: number) => [
  { name: 'relevance', value: relevance },
  { name: 'margin', value: 0.1 },
];

function ev(
  p: Partial<EvidenceRow> & Pick<EvidenceRow, 'key' | 'source' | 'step' | 'rank' | 'title' | 'gamma' | 'kept' | 'reason' | 'fusedRank'>,
): EvidenceRow {
  return { file: 'pkg/mod.py', startLine: 10, endLine: 20, r: 0.5, w: 0.33, u: 0.3, signals: sig(0.5), ...p };
}

export const EVIDENCE: EvidenceRow[] = [
  ev({
    key: 'unit:1',
    source: 'api',
    step: 0,
    rank: 0,
    title: 'pkg.money.Money.amount',
    gamma: 0.15,
    kept: true,
    reason: 'kept: fused rank 1',
    fusedRank: 0,
    text: 'def amount(self) -> Decimal',
  }),
  ev({
    key: 'unit:2',
    source: 'api',
    step: 0,
    rank: 1,
    title: 'pkg.pricing.add_tax',
    gamma: 0.12,
    kept: false,
    reason: 'duplicate of the same item found by similar in step 1 with higher γ',
    fusedRank: null,
  }),
  ev({
    key: 'unit:3',
    source: 'api',
    step: 0,
    rank: 2,
    title: 'pkg.money._round',
    gamma: 0.05,
    kept: false,
    reason: 'below the top 70 % of api in step 1 (kept 2 of 3)',
    fusedRank: null,
  }),
  ev({
    key: 'unit:4',
    source: 'api',
    step: 1,
    rank: 0,
    title: 'pkg.money.Money.__neg__',
    gamma: 0.04,
    kept: false,
    reason: 'API refinement: dunder method __neg__ is not called directly',
    fusedRank: null,
  }),
  ev({ key: 'chunk:7', source: 'context', step: 0, rank: 0, title: 'class Money', gamma: 0.13, kept: true, reason: 'kept: fused rank 2', fusedRank: 1 }),
  ev({
    key: 'chunk:8',
    source: 'context',
    step: 1,
    rank: 0,
    title: 'module header of pkg.pricing',
    gamma: 0.08,
    kept: false,
    reason: 'outside the fused top 3',
    fusedRank: null,
  }),
  ev({
    key: 'unit:2',
    source: 'similar',
    step: 0,
    rank: 0,
    title: 'pkg.pricing.add_tax',
    gamma: 0.125,
    kept: true,
    reason: 'kept: fused rank 3',
    fusedRank: 2,
  }),
  ev({
    key: 'unit:9',
    source: 'similar',
    step: 1,
    rank: 0,
    title: 'pkg.pricing.apply_rule',
    gamma: 0.07,
    kept: false,
    reason: 'outside the fused top 3',
    fusedRank: null,
  }),
];

const set = (precision: number, recall: number, f1: number, count: 'over' | 'exact' | 'under') => ({ precision, recall, f1, exact: false, count });

/**
 * API retrieval under both protocols: the repository one (strict keys) finds one of the two APIs of the truth and
 * two extras; the task-view one (bare names) finds the same hit and one extra. Every row has its reason.
 */
export const API_SCORE: NonNullable<TaskResult['retrieval']['api']> = {
  ...set(0.33, 0.5, 0.4, 'over'),
  truth: 2,
  predicted: 3,
  matching: 'strict',
  strict: set(0.33, 0.5, 0.4, 'over'),
  bare: set(0.33, 0.5, 0.4, 'over'),
  truthFrom: 'reference',
  protocol: 'repository',
  scope: 'kept',
  items: [
    { key: 'pkg.money:Money.amount', title: 'pkg.money.Money.amount', status: 'hit', reason: 'step 1, rank 1: kept: fused rank 1', u: 0.3, p: null },
    {
      key: 'pkg.pricing:add_tax',
      title: 'pkg.pricing.add_tax',
      status: 'extra',
      reason: 'step 1, rank 2: duplicate of the same item found by similar in step 1 with higher γ',
      u: 0.3,
      p: null,
    },
    { key: 'pkg.pricing:apply_rule', title: 'pkg.pricing.apply_rule', status: 'extra', reason: 'predicted', u: null, p: null },
    {
      key: 'pkg.money:Money.__sub__',
      title: 'pkg.money.Money.__sub__',
      status: 'miss',
      reason: "not retrieved in any step (truth from the reference's uses)",
      u: null,
      p: null,
    },
  ],
  taskView: {
    ...set(0.5, 0.5, 0.5, 'exact'),
    truth: 2,
    predicted: 2,
    matching: 'bare',
    strict: set(0.5, 0.5, 0.5, 'exact'),
    bare: set(0.5, 0.5, 0.5, 'exact'),
    truthFrom: 'reference',
    items: [
      {
        key: 'pkg.money:Money.amount',
        title: 'pkg.money.Money.amount',
        status: 'hit',
        reason: 'step 1, rank 1: selected by the API selector',
        u: 0.25,
        p: 0.81,
      },
      { key: 'pkg.money:_round', title: 'pkg.money._round', status: 'extra', reason: 'step 1, rank 3: selected by the API selector', u: 0.4, p: 0.55 },
      {
        key: 'pkg.money:Money.__sub__',
        title: 'pkg.money.Money.__sub__',
        status: 'miss',
        reason: 'retrieved but dropped — step 2, rank 4: below the selector threshold',
        u: 0.62,
        p: 0.21,
      },
    ],
  },
};

const code0 = 'def apply_discount(amount, percent):\n    return amount\n';
const repair1 = 'def apply_discount(amount, percent):\n    rate = percent / 100\n    return amount * (1 - rate)\n';
const repair2 =
  'def apply_discount(amount, percent):\n    if not 0 <= percent <= 100:\n        raise ValueError(percent)\n    rate = percent / 100\n    return amount * (1 - rate)\n';

export function taskResult(over: Partial<TaskResult> = {}): TaskResult {
  const verdict = (passed: boolean) => ({
    status: passed ? ('passed' as const) : ('failed' as const),
    reason: passed ? 'all tests passed' : '2 test(s) did not pass',
    passedTests: passed ? 3 : 1,
    totalTests: 3,
    durationMs: 120,
  });
  return {
    taskId: 'pkg/apply_discount',
    condition: 'opencoder',
    retrieval: {
      steps: 2,
      decomposition: 'fallback',
      fused: 3,
      fusedBySource: { api: 1, context: 1, similar: 1 },
      sourceUncertainty: { api: 0.27, context: 0.39, similar: 0.35 },
      api: API_SCORE,
      promptEvidenceChars: 1200,
    },
    generation: {
      backend: 'offline:retrieve-and-adapt@1',
      model: 'retrieve-and-adapt@1',
      promptVersion: 'opencoder-prompts/1',
      promptKind: 'uncertainty-guided',
      uncertainty: { aggregate: 0.62, entropy: 0.8, consistency: 0.6, variance: null },
      groups: [[0, 1], [2], [3], [4]],
      inputTokens: 900,
      outputTokens: 300,
      costUsd: 0,
      warnings: [],
    },
    candidates: [0, 1, 2, 3, 4].map((i) => ({
      index: i,
      code: code0,
      group: i === 1 ? 0 : Math.max(0, i - 1),
      origin: null,
      verdict: verdict(false),
      passed: false,
    })),
    n: 5,
    c: 0,
    selected: { origin: 'repair', candidateIndex: 0, repairRound: 2, correct: true, verified: true, code: repair2 },
    repairs: [
      { round: 1, passed: false, code: repair1, reason: '1 test(s) did not pass' },
      { round: 2, passed: true, code: repair2, reason: 'all tests passed' },
    ],
    repairRecovered: true,
    repairAttempted: true,
    selectionTrace: [{ kind: 'final', note: 'repair round 2 passed' }],
    timingsMs: { retrieve: 100, generate: 200, validate: 300, total: 600 },
    detail: {
      steps: [
        {
          index: 0,
          text: 'Compute the discount in cents.',
          weights: { api: 0.5, context: 0.2, similar: 0.3 },
          queries: { api: 'discount cents', context: 'pkg.pricing', similar: 'def apply_discount' },
        },
        {
          index: 1,
          text: 'Reject percentages outside 0-100.',
          weights: { api: 0.2, context: 0.4, similar: 0.4 },
          queries: { api: 'ValueError', context: 'pkg.pricing', similar: 'def apply_discount' },
        },
      ],
      evidence: EVIDENCE,
      masked: ['unit pkg/pricing.py:apply_discount'],
      encoder: 'opencoder-subtoken-hash-256',
      uncertaintyMethods: { entropy: 'group-entropy', consistency: '1 − largest group / n', variance: 'not measurable' },
      prompt: [
        { role: 'system', content: 'You write Python.' },
        { role: 'user', content: 'Implement apply_discount.' },
      ],
      tests: [0, 1, 2, 3, 4].map(() => [
        { id: 'tests.test_pricing.T.test_a', outcome: 'passed' },
        { id: 'tests.test_pricing.T.test_b', outcome: 'failed', message: 'AssertionError' },
      ]),
      findings: [0, 1, 2, 3, 4].map(() => [{ kind: 'unused-argument', severity: 'warning', message: "argument 'percent' is unused", line: 1 }]),
      repairTests: [[{ id: 'tests.test_pricing.T.test_b', outcome: 'failed' }], [{ id: 'tests.test_pricing.T.test_b', outcome: 'passed' }]],
    },
    ...over,
  };
}
