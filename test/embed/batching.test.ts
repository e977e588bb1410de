import { describe, expect, it } from 'vitest';
import { planBatches, runBatched } from '../../main/embed/batching.ts';

describe('planBatches', () => {
  it('sorts by length and respects the batch size', () => {
    const lengths = [5, 1, 9, 3, 7, 2];
    const plan = planBatches(lengths, { maxBatch: 2 });
    expect(plan).toEqual([
      [1, 5],
      [3, 0],
      [4, 2],
    ]);
  });

  it('keeps ties in input order and covers every index once', () => {
    const lengths = [4, 4, 4, 1, 4];
    const plan = planBatches(lengths, { maxBatch: 10 });
    expect(plan).toEqual([[3, 0, 1, 2, 4]]);
  });

  it('bounds padded cells, but never splits a single long item', () => {
    const plan = planBatches([10, 10, 10, 100], { maxBatch: 8, maxCells: 25 });
    expect(plan).toEqual([[0, 1], [2], [3]]);
  });

  it('splits a batch rather than let padding exceed the allowed share', () => {
    const lengths = [10, 10, 11, 40, 41, 42];
    expect(planBatches(lengths, { maxBatch: 32 })).toHaveLength(1);
    expect(planBatches(lengths, { maxBatch: 32, maxPaddingFraction: 0.2 })).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
  });

  it('handles no items', () => {
    expect(planBatches([], { maxBatch: 4 })).toEqual([]);
  });
});

describe('runBatched', () => {
  it('restores input order', async () => {
    const items = ['ccc', 'a', 'bbbb', 'dd', 'e'];
    const seen: string[][] = [];
    const out = await runBatched(
      items,
      items.map((s) => s.length),
      { maxBatch: 2 },
      async (batch) => {
        seen.push(batch);
        return batch.map((s) => s.toUpperCase());
      },
    );
    expect(out).toEqual(['CCC', 'A', 'BBBB', 'DD', 'E']);
    expect(seen).toEqual([['a', 'e'], ['dd', 'ccc'], ['bbbb']]);
  });

  it('rejects a batch function that returns the wrong number of results', async () => {
    await expect(runBatched([1, 2], [1, 1], { maxBatch: 2 }, async () => [1])).rejects.toThrow(/1 results for 2 inputs/);
  });
});
