import { describe, expect, it } from 'vitest';
import { fuse, gammaOf, keepCount } from '../../main/retrieve/fuse.ts';
import { makeConfig } from '../../main/model/config.ts';
import type { Evidence } from '../../main/model/trace.ts';
import type { Source } from '../../main/model/config.ts';
import { evidenceItem } from '../helpers/evidence.ts';

function ev(key: string, source: Source, step: number, rank: number, r: number, w: number, u: number): Evidence {
  return evidenceItem({ key, source, step, rank, r, w, u });
}

describe('γ and the keep rule', () => {
  it('computes γ = r · w · max(0, 1 − α·u)', () => {
    expect(gammaOf(0.8, 0.5, 0.4, 0.5, true)).toBeCloseTo(0.8 * 0.5 * 0.8, 12);
    expect(gammaOf(0.8, 0.5, 1, 3, true)).toBe(0); // clipped at 0
    expect(gammaOf(0.8, 0.5, 0.9, 0.5, false)).toBeCloseTo(0.4, 12); // Baseline RAG ignores u
  });

  it('keeps ⌈0.7·n⌉ per source and step, at least one', () => {
    expect([0, 1, 2, 3, 7, 8, 10].map((n) => keepCount(n, 0.7))).toEqual([0, 1, 2, 3, 5, 6, 7]);
  });

  it('keeps the top 70 % by γ within each (source, step) and says why the rest went', () => {
    const cfg = makeConfig().fusion;
    // r, w, u chosen so the γ order differs from the r order: b has the best r but a high u.
    const items = [
      ev('a', 'api', 0, 0, 0.6, 1 / 3, 0.0), // γ = 0.2
      ev('b', 'api', 0, 1, 0.9, 1 / 3, 1.0), // γ = 0.15
      ev('c', 'api', 0, 2, 0.5, 1 / 3, 0.2), // γ = 0.15
      ev('d', 'api', 0, 3, 0.3, 1 / 3, 0.0), // γ = 0.1
    ];
    fuse(items, cfg);
    expect(items.map((e) => Number(e.gamma.toFixed(4)))).toEqual([0.2, 0.15, 0.15, 0.1]);
    // ⌈0.7 · 4⌉ = 3 kept; d dropped.
    expect(items.filter((e) => e.kept).map((e) => e.key)).toEqual(['a', 'b', 'c']);
    expect(items[3]!.reason).toBe('below the top 70 % of api in step 1 (kept 3 of 4)');
  });
});

describe('merging', () => {
  it('deduplicates the same item across sources and steps, keeping its best γ and all provenances', () => {
    const cfg = makeConfig().fusion;
    const items = [
      ev('unit:1', 'api', 0, 0, 0.5, 0.5, 0), // γ 0.25
      ev('unit:1', 'similar', 1, 0, 0.9, 0.5, 0), // γ 0.45
      ev('unit:2', 'context', 0, 0, 0.4, 0.5, 0), // γ 0.2
    ];
    const fused = fuse(items, cfg);
    expect(fused.map((e) => `${e.source}:${e.key}`)).toEqual(['similar:unit:1', 'context:unit:2']);
    expect(fused[0]!.provenance.map((p) => `${p.source}/${p.step}`)).toEqual(['similar/1', 'api/0']);
    expect(items[0]!.kept).toBe(false);
    expect(items[0]!.reason).toMatch(/duplicate of the same item found by similar in step 2/);
  });

  it('keeps the top K overall and honours a per-source cap', () => {
    const many = Array.from({ length: 14 }, (_, i) => ev(`k${i}`, i % 2 ? 'api' : 'similar', i, 0, 1 - i * 0.01, 1, 0));
    const fused = fuse(many, makeConfig({ fusion: { topK: 10 } }).fusion);
    expect(fused).toHaveLength(10);
    expect(many.filter((e) => e.reason === 'outside the fused top 10')).toHaveLength(4);

    const capped = Array.from({ length: 6 }, (_, i) => ev(`c${i}`, i < 4 ? 'api' : 'context', i, 0, 1 - i * 0.01, 1, 0));
    const out = fuse(capped, makeConfig({ fusion: { perSourceCap: 2 } }).fusion);
    expect(out.map((e) => e.key)).toEqual(['c0', 'c1', 'c4', 'c5']);
    expect(capped[2]!.reason).toBe('over the per-source cap of 2 for api');
  });

  it('leaves items removed by refinement out of the keep count', () => {
    const items = [ev('a', 'api', 0, 0, 0.9, 1, 0), ev('b', 'api', 0, 1, 0.8, 1, 0), ev('c', 'api', 0, 2, 0.7, 1, 0)];
    items[0]!.kept = false;
    items[0]!.reason = 'API refinement: the target itself';
    fuse(items, makeConfig().fusion);
    expect(items[0]!.reason).toBe('API refinement: the target itself');
    // ⌈0.7 · 2⌉ = 2 of the remaining two are kept
    expect(items.filter((e) => e.kept).map((e) => e.key)).toEqual(['b', 'c']);
  });
});

describe('concatenation (Baseline RAG)', () => {
  it('takes sources in turn in their own order, skips duplicates, shows the list source by source', () => {
    const cfg = makeConfig({ fusion: { mode: 'concatenate', topK: 5 } }).fusion;
    const items = [
      ev('a1', 'api', 0, 0, 0.1, 1, 0.9),
      ev('a2', 'api', 0, 1, 0.9, 1, 0.0),
      ev('a3', 'api', 0, 2, 0.9, 1, 0.0),
      ev('c1', 'context', 0, 0, 0.2, 1, 0.5),
      ev('a1', 'context', 0, 1, 0.2, 1, 0.5), // the same item as api's a1
      ev('c2', 'context', 0, 2, 0.2, 1, 0.5),
      ev('s1', 'similar', 0, 0, 0.3, 1, 0.1),
    ];
    const fused = fuse(items, cfg);
    // turns: a1 c1 s1 | a2 (context's a1 is a duplicate, so c2) → 5 items, u and r play no part
    expect(fused.map((e) => `${e.source}:${e.key}`)).toEqual(['api:a1', 'api:a2', 'context:c1', 'context:c2', 'similar:s1']);
    expect(items[4]!.kept).toBe(false);
    expect(items[4]!.reason).toMatch(/duplicate/);
    expect(items[2]!.kept).toBe(false);
    expect(items[2]!.reason).toBe('beyond the 5 items concatenated');
    expect(fused[0]!.provenance.map((p) => p.source)).toEqual(['api', 'context']);
  });
});
