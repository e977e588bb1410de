import { describe, expect, it } from 'vitest';
import {
  importabilityOf,
  localityOf,
  resolveImport,
  scoreList,
  supportOf,
  SIGNAL_WEIGHTS,
  type ScoredItem,
  type TargetContext,
} from '../../main/retrieve/uncertainty.ts';
import type { Item } from '../../main/store/items.ts';
import type { Source } from '../../main/model/config.ts';

const target: TargetContext = { module: 'shop.pricing', imports: ['.money.Money', 'decimal', 'shop.catalog'], arity: 2 };

function item(over: Partial<Item> = {}): Item {
  return {
    kind: 'api',
    id: 1,
    key: 'k',
    file: 'shop/pricing.py',
    module: 'shop.pricing',
    startLine: 1,
    endLine: 2,
    title: 't',
    text: 'def f(a, b): return a',
    name: 'f',
    qualname: 'f',
    owner: null,
    signature: 'def f(a, b)',
    description: 'Doc.',
    descriptionSource: 'docstring',
    params: [
      { name: 'a', kind: 'positional_or_keyword', annotation: null, default: null },
      { name: 'b', kind: 'positional_or_keyword', annotation: null, default: null },
    ],
    unitId: 1,
    subkind: 'function',
    ...over,
  };
}

function vec(...xs: number[]): Float32Array {
  const v = new Float32Array(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
}

const signal = (res: ReturnType<typeof scoreList>, i: number, name: string) => res[i]!.signals.find((s) => s.name === name)!.value;

describe('uncertainty signals point the right way', () => {
  const one = (source: Source, it: Item, r = 0.6): ScoredItem[] => [{ item: it, r, vector: vec(1, 0, 0) }];

  it('relevance and margin: a weaker item is less certain', () => {
    const list: ScoredItem[] = [
      { item: item({ id: 1 }), r: 0.8, vector: vec(1, 0, 0) },
      { item: item({ id: 2 }), r: 0.4, vector: vec(0, 1, 0) },
    ];
    const res = scoreList('api', list, 'q', target);
    expect(signal(res, 1, 'relevance')).toBeGreaterThan(signal(res, 0, 'relevance'));
    expect(signal(res, 1, 'margin')).toBeGreaterThan(signal(res, 0, 'margin'));
    expect(res[1]!.u).toBeGreaterThan(res[0]!.u);
  });

  it('dispersion: a flat list (nothing stands out) is less certain than a peaked one', () => {
    const flat = scoreList(
      'api',
      [0.5, 0.49, 0.48].map((r, i) => ({ item: item({ id: i }), r, vector: vec(1, i, 0) })),
      'q',
      target,
    );
    const peaked = scoreList(
      'api',
      [0.8, 0.5, 0.45].map((r, i) => ({ item: item({ id: i }), r, vector: vec(1, i, 0) })),
      'q',
      target,
    );
    expect(signal(flat, 0, 'dispersion')).toBeGreaterThan(signal(peaked, 0, 'dispersion'));
  });

  it('redundancy: a near-copy of a higher-ranked item is less certain', () => {
    const res = scoreList(
      'similar',
      [
        { item: item({ id: 1 }), r: 0.7, vector: vec(1, 0, 0) },
        { item: item({ id: 2 }), r: 0.69, vector: vec(1, 0.01, 0) },
        { item: item({ id: 3 }), r: 0.68, vector: vec(0, 1, 0) },
      ],
      'q',
      target,
    );
    expect(signal(res, 1, 'redundancy')).toBeGreaterThan(0.9);
    expect(signal(res, 2, 'redundancy')).toBe(0);
  });

  it('API description: derived from the signature is less certain than a docstring', () => {
    const doc = scoreList('api', one('api', item()), 'q', target);
    const sig = scoreList('api', one('api', item({ descriptionSource: 'signature' })), 'q', target);
    expect(signal(sig, 0, 'description')).toBeGreaterThan(signal(doc, 0, 'description'));
  });

  it('API importability: private names of other modules < other packages < same package < same module', () => {
    const same = importabilityOf(item(), target);
    const pkg = importabilityOf(item({ module: 'shop.money' }), target);
    const other = importabilityOf(item({ module: 'vendor.x' }), target);
    const priv = importabilityOf(item({ module: 'shop.money', name: '_cents', qualname: '_cents' }), target);
    expect(same).toBeLessThan(pkg);
    expect(pkg).toBeLessThan(other);
    expect(other).toBeLessThan(priv);
  });

  it('context locality: own module < imported module < same package < elsewhere', () => {
    expect(resolveImport('.money.Money', 'shop.pricing')).toBe('shop.money.Money');
    expect(resolveImport('..core', 'shop.sub.mod')).toBe('shop.core');
    const l = ['shop.pricing', 'shop.money', 'shop.reports', 'other.mod'].map((m) => localityOf(m, target));
    expect(l).toEqual([0, 0.2, 0.4, 0.8]);
  });

  it('context support: a chunk missing the query words is less certain', () => {
    expect(supportOf('discount price rule', 'def apply_discount(price, rule)')).toBeLessThan(supportOf('discount price rule', 'import os'));
  });

  it('similar code: a different arity and no docstring are less certain', () => {
    const same = scoreList('similar', one('similar', item()), 'q', target);
    const diff = scoreList(
      'similar',
      one(
        'similar',
        item({
          params: [
            { name: 'x', kind: 'positional_or_keyword', annotation: null, default: null },
            { name: 'y', kind: 'positional_or_keyword', annotation: null, default: null },
            { name: 'z', kind: 'positional_or_keyword', annotation: null, default: null },
            { name: 'w', kind: 'positional_or_keyword', annotation: null, default: null },
          ],
        }),
      ),
      'q',
      target,
    );
    const undoc = scoreList('similar', one('similar', item({ description: '' })), 'q', target);
    expect(signal(diff, 0, 'arity')).toBeGreaterThan(signal(same, 0, 'arity'));
    expect(signal(undoc, 0, 'undocumented')).toBeGreaterThan(signal(same, 0, 'undocumented'));
  });

  it('weights sum to 1 for every source and u stays in [0, 1]', () => {
    for (const s of ['api', 'context', 'similar'] as const) {
      expect(Object.values(SIGNAL_WEIGHTS[s]).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      const res = scoreList(
        s,
        [{ item: item({ description: '', descriptionSource: 'signature', module: 'zz.top' }), r: -0.2, vector: null }],
        'nothing here',
        target,
      );
      expect(res[0]!.u).toBeGreaterThanOrEqual(0);
      expect(res[0]!.u).toBeLessThanOrEqual(1);
    }
  });
});
