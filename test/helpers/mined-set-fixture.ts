// A mined set as repo.mined returns it (one kept task, a thin and an undocumented drop), for the contract's output
// check and the renderer's Find tasks tests.

import type { MinedSet } from '../../contract/index.ts';

export function minedSetFixture(out: string, score = 1): MinedSet {
  const killed = Math.round(score * 8);
  return {
    out,
    manifest: `${out}/tasks.jsonl`,
    report: `${out}/MINE.md`,
    complete: true,
    candidates: 3,
    kept: [
      {
        id: 'shop.pricing.apply_discount',
        file: 'shop/pricing.py',
        qualname: 'apply_discount',
        line: 32,
        tests: 16,
        mutants: { killed, made: 8, score },
        isolation: 'isolated',
        context: 'project_runnable',
      },
    ],
    dropped: [
      {
        id: 'shop.pricing.tax',
        file: 'shop/pricing.py',
        qualname: 'tax',
        line: 50,
        reason: 'thin',
        label: 'thin (its tests kill no mutant)',
        detail: 'its tests kill none of 6 mutants',
      },
      {
        id: 'shop.cart.Cart.__init__',
        file: 'shop/cart.py',
        qualname: 'Cart.__init__',
        line: 9,
        reason: 'no-docstring',
        label: 'no docstring',
        detail: 'it has no docstring',
      },
    ],
    droppedBy: [
      { reason: 'thin', label: 'thin (its tests kill no mutant)', count: 1 },
      { reason: 'no-docstring', label: 'no docstring', count: 1 },
    ],
    isolated: 1,
    mutationScore: { median: score, mean: score },
  };
}
