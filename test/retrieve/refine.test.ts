import { describe, expect, it } from 'vitest';
import { refineApi } from '../../main/retrieve/refine.ts';
import type { Item } from '../../main/store/items.ts';

function api(module: string, qualname: string, signature: string, subkind = 'function'): Item {
  const name = qualname.split('.').pop()!;
  return {
    kind: 'api',
    id: Math.random(),
    key: `${module}:${qualname}`,
    file: `${module.replace(/\./g, '/')}.py`,
    module,
    startLine: 1,
    endLine: 2,
    title: `${module}.${qualname}`,
    text: signature,
    name,
    qualname,
    owner: qualname.includes('.') ? qualname.split('.')[0]! : null,
    signature,
    description: '',
    descriptionSource: 'docstring',
    params: [],
    unitId: null,
    subkind,
  };
}

const target = { module: 'pkg.text', qualname: 'slugify', name: 'slugify', signature: 'def slugify(value: str, sep: str = "-") -> str:' };

describe('API refinement', () => {
  it('removes the target itself, by location or by name and signature', () => {
    const r = refineApi(
      [
        api('pkg.text', 'slugify', 'def slugify(value: str, sep: str = "-") -> str'),
        api('pkg.other', 'slugify', 'def slugify(value: str, sep: str = "-") -> str'),
      ],
      target,
    );
    expect(r.get(0)?.rule).toBe('target');
    expect(r.get(1)?.rule).toBe('target');
  });

  it('removes another definition of the target name (self-retrieval)', () => {
    const r = refineApi([api('pkg.compat', 'slugify', 'def slugify(s)')], target);
    expect(r.get(0)?.rule).toBe('self');
  });

  it('collapses X.__init__ onto X and overloads onto their first entry', () => {
    const items = [
      api('pkg.money', 'Money', 'class Money', 'class'),
      api('pkg.money', 'Money.__init__', 'def __init__(self, cents)', 'method'),
      api('pkg.money', 'Money', 'class Money', 'class'),
    ];
    const r = refineApi(items, target);
    expect(r.has(0)).toBe(false);
    expect(r.get(1)?.rule).toBe('redundant');
    expect(r.get(1)?.reason).toMatch(/same API as pkg\.money\.Money/);
    expect(r.get(2)?.rule).toBe('redundant');
  });

  it('removes re-exports: the same name and signature from another module', () => {
    const r = refineApi([api('pkg.core', 'parse', 'def parse(text: str) -> Doc'), api('pkg', 'parse', 'def parse(text: str) -> Doc')], target);
    expect(r.has(0)).toBe(false);
    expect(r.get(1)?.rule).toBe('redundant');
    expect(r.get(1)?.reason).toMatch(/re-export of pkg\.core\.parse/);
  });

  it('removes intent-incompatible items: private names of other modules and dunder methods', () => {
    const items = [
      api('pkg.util', '_helper', 'def _helper(x)'),
      api('pkg.text', '_words', 'def _words(x)'),
      api('pkg.money', 'Money.__repr__', 'def __repr__(self)', 'method'),
    ];
    const r = refineApi(items, target);
    expect(r.get(0)?.rule).toBe('incompatible');
    expect(r.has(1)).toBe(false); // private but in the target's own module: usable
    expect(r.get(2)?.rule).toBe('incompatible');
  });
});
