import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractor, languageForPath, moduleNameForPath, type Extractor } from '../../main/index/extract.ts';
import type { ExtractedChunk, ExtractedUnit, ParseResult } from '../../main/model/code.ts';

let ex: Extractor;
beforeAll(async () => {
  ex = await createExtractor();
});
afterAll(() => ex.dispose());

function unit(r: ParseResult, qualname: string, nth = 0): ExtractedUnit {
  const found = r.units.filter((u) => u.qualname === qualname);
  const u = found[nth];
  if (!u) throw new Error(`no unit ${qualname} (#${nth}); have: ${r.units.map((x) => x.qualname).join(', ')}`);
  return u;
}

function chunk(r: ParseResult, kind: ExtractedChunk['kind'], owner = ''): ExtractedChunk {
  const c = r.chunks.find((x) => x.kind === kind && x.owner === owner);
  if (!c) throw new Error(`no ${kind} chunk for '${owner}'; have: ${r.chunks.map((x) => `${x.kind}:${x.owner}`).join(', ')}`);
  return c;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('languageForPath / moduleNameForPath', () => {
  it('maps extensions to languages', () => {
    expect(languageForPath('a/b.py')).toBe('python');
    expect(languageForPath('a/b.pyi')).toBe('python');
    expect(languageForPath('a/b.ts')).toBe('typescript');
    expect(languageForPath('a/b.d.ts')).toBe('typescript');
    expect(languageForPath('a/b.mts')).toBe('typescript');
    expect(languageForPath('a/b.cts')).toBe('typescript');
    expect(languageForPath('a/B.tsx')).toBe('tsx');
    expect(languageForPath('a/b.js')).toBe('javascript');
    expect(languageForPath('a/b.mjs')).toBe('javascript');
    expect(languageForPath('a/b.cjs')).toBe('javascript');
    expect(languageForPath('a/b.jsx')).toBe('javascript');
    expect(languageForPath('a/b.rs')).toBeNull();
    expect(languageForPath('Makefile')).toBeNull();
  });

  it('derives dotted module names', () => {
    expect(moduleNameForPath('pkg/sub/mod.py', 'python')).toBe('pkg.sub.mod');
    expect(moduleNameForPath('pkg/__init__.py', 'python')).toBe('pkg');
    expect(moduleNameForPath('pkg\\sub\\__init__.py', 'python')).toBe('pkg.sub');
    expect(moduleNameForPath('__init__.py', 'python')).toBe('__init__');
    expect(moduleNameForPath('stubs/os.pyi', 'python')).toBe('stubs.os');
    expect(moduleNameForPath('src/util/strings.ts', 'typescript')).toBe('src.util.strings');
    expect(moduleNameForPath('src/util/index.ts', 'typescript')).toBe('src.util');
    expect(moduleNameForPath('lib/index.js', 'javascript')).toBe('lib');
    expect(moduleNameForPath('index.js', 'javascript')).toBe('index');
    expect(moduleNameForPath('types/globals.d.ts', 'typescript')).toBe('types.globals');
    expect(moduleNameForPath('ui/Button.tsx', 'tsx')).toBe('ui.Button');
  });
});

const PY = `"""Utilities for parsing things.

Second paragraph.
"""
from __future__ import annotations

import functools
import os.path as osp, sys
from typing import Dict, List, Optional
from .helpers import (slugify,
                      normalize as norm)

__all__ = ["Parser", "parse"]
DEFAULT_SEP: str = ","
square = lambda x, power=2: pow(x, power)


class Parser(Base, metaclass=abc.ABCMeta):
    '''Parse things.

        Indented detail.
    '''

    registry: Dict[str, "Parser"] = {}
    mode = "strict"

    def __init__(self, source: str, *, strict: bool = True) -> None:
        self.source = source
        self.tokens = tokenize(source)

    @property
    def name(self) -> str:
        "The parser's name."
        return self._name

    @staticmethod
    def create(*args, **kwargs) -> "Parser":
        return Parser(*args, **kwargs)

    @functools.lru_cache(maxsize=None)
    def lookup(self, key: tuple[int, str] = (1, "a,b"), /, fallback=None):
        """Look up a key."""
        def walk(node):
            return visit(node.children)
        return walk(self.registry.get(key, fallback))

    class Options:
        """Parser options."""
        verbose = False

        def merge(self, other: "Parser.Options") -> "Parser.Options":
            return merge_dicts(self, other)


async def parse(
    text: str,
    sep: str = DEFAULT_SEP,
    *rest: Optional[List[Dict[str, int]]],
    key=lambda item: (item[0], item[1]),
    **options,
) -> List[str]:
    """Parse \`\`text\`\` asynchronously."""
    import json
    result = await Parser(text).run(sep)
    return [norm(x) for x in osp.join(result, json.dumps(options))]


def _helper(a, b=(1, 2), /, c=None, *, d: int, **kw):
    return sorted(a, key=lambda v: len(v))


if __name__ == "__main__":
    main(sys.argv)
`;

describe('python units', () => {
  let r: ParseResult;
  beforeAll(() => {
    r = ex.parse('pkg/parsing.py', 'python', PY);
  });

  it('lists units in source order with qualnames, kinds and parents', () => {
    expect(r.language).toBe('python');
    expect(r.module).toBe('pkg.parsing');
    expect(r.errors).toEqual([]);
    expect(r.units.map((u) => [u.kind, u.qualname, u.parentQualname])).toEqual([
      ['module', '', null],
      ['function', 'square', null],
      ['class', 'Parser', null],
      ['method', 'Parser.__init__', 'Parser'],
      ['method', 'Parser.name', 'Parser'],
      ['method', 'Parser.create', 'Parser'],
      ['method', 'Parser.lookup', 'Parser'],
      ['function', 'Parser.lookup.<locals>.walk', 'Parser.lookup'],
      ['class', 'Parser.Options', 'Parser'],
      ['method', 'Parser.Options.merge', 'Parser.Options'],
      ['function', 'parse', null],
      ['function', '_helper', null],
    ]);
    expect(unit(r, 'Parser.lookup.<locals>.walk').name).toBe('walk');
  });

  it('describes the module unit', () => {
    const m = unit(r, '');
    expect(m.name).toBe('pkg.parsing');
    expect(m.signature).toBe('module pkg.parsing');
    expect(m.docstring).toBe('Utilities for parsing things.\n\nSecond paragraph.');
    expect(m.body).toBe(PY);
    expect([m.startLine, m.endLine]).toEqual([1, 73]);
    expect(m.calls).toEqual(['main']);
    expect(m.imports).toEqual([
      '__future__.annotations',
      'functools',
      'os.path',
      'sys',
      'typing.Dict',
      'typing.List',
      'typing.Optional',
      '.helpers.slugify',
      '.helpers.normalize',
    ]);
    expect(m.contentHash).toBe(sha(PY));
  });

  it('records a module-level lambda assignment as a function', () => {
    const sq = unit(r, 'square');
    expect(sq.signature).toBe('square = lambda x, power=2');
    expect(sq.params).toEqual([
      { name: 'x', kind: 'positional_or_keyword', annotation: null, default: null },
      { name: 'power', kind: 'positional_or_keyword', annotation: null, default: '2' },
    ]);
    expect(sq.calls).toEqual(['pow']);
    expect(sq.body).toBe('square = lambda x, power=2: pow(x, power)');
    expect([sq.startLine, sq.endLine]).toEqual([15, 15]);
    // lambdas elsewhere (defaults, arguments) are not units
    expect(r.units.some((u) => u.name.includes('lambda') || u.qualname === 'key')).toBe(false);
  });

  it('extracts the class with bases, cleaned docstring and span', () => {
    const c = unit(r, 'Parser');
    expect(c.signature).toBe('class Parser(Base, metaclass=abc.ABCMeta)');
    expect(c.docstring).toBe('Parse things.\n\nIndented detail.');
    expect([c.startLine, c.endLine]).toEqual([18, 52]);
    expect(c.params).toEqual([]);
    expect(c.calls).toEqual([]);
  });

  it('handles keyword-only parameters and return annotations', () => {
    const init = unit(r, 'Parser.__init__');
    expect(init.signature).toBe('def __init__(self, source: str, *, strict: bool = True) -> None');
    expect(init.params).toEqual([
      { name: 'self', kind: 'positional_or_keyword', annotation: null, default: null },
      { name: 'source', kind: 'positional_or_keyword', annotation: 'str', default: null },
      { name: 'strict', kind: 'keyword_only', annotation: 'bool', default: 'True' },
    ]);
    expect(init.returns).toBe('None');
    expect(init.calls).toEqual(['tokenize']);
    expect(init.docstring).toBeNull();
  });

  it('keeps decorators and includes them in span and body', () => {
    const name = unit(r, 'Parser.name');
    expect(name.decorators).toEqual(['property']);
    expect(name.docstring).toBe("The parser's name.");
    expect([name.startLine, name.endLine]).toEqual([31, 34]);
    expect(name.body).toBe('@property\ndef name(self) -> str:\n    "The parser\'s name."\n    return self._name');
    expect(name.contentHash).toBe(sha(name.body));

    const create = unit(r, 'Parser.create');
    expect(create.decorators).toEqual(['staticmethod']);
    expect(create.signature).toBe('def create(*args, **kwargs) -> "Parser"');
    expect(create.params.map((p) => [p.name, p.kind])).toEqual([
      ['args', 'var_positional'],
      ['kwargs', 'var_keyword'],
    ]);
    expect(create.returns).toBe('"Parser"');

    const lookup = unit(r, 'Parser.lookup');
    expect(lookup.decorators).toEqual(['functools.lru_cache(maxsize=None)']);
    expect([lookup.startLine, lookup.endLine]).toEqual([40, 45]);
    expect(lookup.body.startsWith('@functools.lru_cache(maxsize=None)\ndef lookup(')).toBe(true);
  });

  it('handles positional-only markers and defaults containing commas and parentheses', () => {
    const lookup = unit(r, 'Parser.lookup');
    expect(lookup.signature).toBe('def lookup(self, key: tuple[int, str] = (1, "a,b"), /, fallback=None)');
    expect(lookup.params).toEqual([
      { name: 'self', kind: 'positional_only', annotation: null, default: null },
      { name: 'key', kind: 'positional_only', annotation: 'tuple[int, str]', default: '(1, "a,b")' },
      { name: 'fallback', kind: 'positional_or_keyword', annotation: null, default: 'None' },
    ]);
    expect(lookup.docstring).toBe('Look up a key.');
    // the decorator call belongs to the decorated unit; calls in the nested def do not
    expect(lookup.calls).toEqual(['functools.lru_cache', 'walk', 'self.registry.get']);
    expect(unit(r, 'Parser.lookup.<locals>.walk').calls).toEqual(['visit']);

    const helper = unit(r, '_helper');
    expect(helper.signature).toBe('def _helper(a, b=(1, 2), /, c=None, *, d: int, **kw)');
    expect(helper.params).toEqual([
      { name: 'a', kind: 'positional_only', annotation: null, default: null },
      { name: 'b', kind: 'positional_only', annotation: null, default: '(1, 2)' },
      { name: 'c', kind: 'positional_or_keyword', annotation: null, default: 'None' },
      { name: 'd', kind: 'keyword_only', annotation: 'int', default: null },
      { name: 'kw', kind: 'var_keyword', annotation: null, default: null },
    ]);
    // calls inside a lambda belong to the enclosing unit
    expect(helper.calls).toEqual(['sorted', 'len']);
  });

  it('handles nested classes with string annotations', () => {
    const merge = unit(r, 'Parser.Options.merge');
    expect(merge.kind).toBe('method');
    expect(merge.signature).toBe('def merge(self, other: "Parser.Options") -> "Parser.Options"');
    expect(merge.params[1]).toEqual({ name: 'other', kind: 'positional_or_keyword', annotation: '"Parser.Options"', default: null });
    expect(merge.calls).toEqual(['merge_dicts']);
    expect(unit(r, 'Parser.Options').docstring).toBe('Parser options.');
  });

  it('flattens a multi-line async signature with nested generics and a lambda default', () => {
    const p = unit(r, 'parse');
    expect(p.isAsync).toBe(true);
    expect(p.signature).toBe(
      'async def parse(text: str, sep: str = DEFAULT_SEP, *rest: Optional[List[Dict[str, int]]], key=lambda item: (item[0], item[1]), **options) -> List[str]',
    );
    expect(p.params).toEqual([
      { name: 'text', kind: 'positional_or_keyword', annotation: 'str', default: null },
      { name: 'sep', kind: 'positional_or_keyword', annotation: 'str', default: 'DEFAULT_SEP' },
      { name: 'rest', kind: 'var_positional', annotation: 'Optional[List[Dict[str, int]]]', default: null },
      { name: 'key', kind: 'keyword_only', annotation: null, default: 'lambda item: (item[0], item[1])' },
      { name: 'options', kind: 'var_keyword', annotation: null, default: null },
    ]);
    expect(p.returns).toBe('List[str]');
    expect(p.docstring).toBe('Parse ``text`` asynchronously.');
    expect([p.startLine, p.endLine]).toEqual([55, 65]);
    expect(p.calls).toEqual(['Parser(text).run', 'Parser', 'norm', 'osp.join', 'json.dumps']);
    expect(p.imports).toEqual(['json']);
    expect(unit(r, '_helper').isAsync).toBe(false);
  });

  it('dedents bodies of nested definitions', () => {
    const merge = unit(r, 'Parser.Options.merge');
    expect(merge.body).toBe('def merge(self, other: "Parser.Options") -> "Parser.Options":\n    return merge_dicts(self, other)');
  });
});

describe('python chunks', () => {
  let r: ParseResult;
  beforeAll(() => {
    r = ex.parse('pkg/parsing.py', 'python', PY);
  });

  it('builds a module header from docstring, imports and assignments', () => {
    const h = chunk(r, 'module_header');
    expect(h.title).toBe('module header of pkg.parsing');
    expect(h.text).toBe(
      [
        '"""Utilities for parsing things.',
        '',
        'Second paragraph.',
        '"""',
        'from __future__ import annotations',
        'import functools',
        'import os.path as osp, sys',
        'from typing import Dict, List, Optional',
        'from .helpers import (slugify,',
        '                      normalize as norm)',
        '__all__ = ["Parser", "parse"]',
        'DEFAULT_SEP: str = ","',
        'square = lambda x, power=2: pow(x, power)',
      ].join('\n'),
    );
    expect([h.startLine, h.endLine]).toEqual([1, 15]);
    expect(h.contentHash).toBe(sha(h.text));
  });

  it('builds stub-like class skeletons without bodies', () => {
    const c = chunk(r, 'class_skeleton', 'Parser');
    expect(c.title).toBe('class Parser');
    expect(c.text).toBe(
      [
        'class Parser(Base, metaclass=abc.ABCMeta):',
        '    """Parse things.',
        '',
        '    Indented detail.',
        '    """',
        '    registry: Dict[str, "Parser"] = {}',
        '    mode = "strict"',
        '    def __init__(self, source: str, *, strict: bool = True) -> None: ...',
        '    @property',
        '    def name(self) -> str:',
        '        """The parser\'s name."""',
        '    @staticmethod',
        '    def create(*args, **kwargs) -> "Parser": ...',
        '    @functools.lru_cache(maxsize=None)',
        '    def lookup(self, key: tuple[int, str] = (1, "a,b"), /, fallback=None):',
        '        """Look up a key."""',
        '    class Options:',
        '        """Parser options."""',
      ].join('\n'),
    );
    expect([c.startLine, c.endLine]).toEqual([18, 52]);
    expect(c.text).not.toContain('tokenize');
    const inner = chunk(r, 'class_skeleton', 'Parser.Options');
    expect(inner.title).toBe('class Parser.Options');
    expect(inner.text).toBe(
      'class Options:\n    """Parser options."""\n    verbose = False\n    def merge(self, other: "Parser.Options") -> "Parser.Options": ...',
    );
  });

  it('lists module-level functions in a siblings chunk', () => {
    const s = chunk(r, 'siblings');
    expect(s.title).toBe('functions in pkg.parsing (3)');
    expect(s.text).toBe(
      [
        'square = lambda x, power=2: ...',
        'async def parse(text: str, sep: str = DEFAULT_SEP, *rest: Optional[List[Dict[str, int]]], key=lambda item: (item[0], item[1]), **options) -> List[str]:',
        '    """Parse ``text`` asynchronously."""',
        'def _helper(a, b=(1, 2), /, c=None, *, d: int, **kw): ...',
      ].join('\n'),
    );
    expect([s.startLine, s.endLine]).toEqual([15, 69]);
    expect(r.chunks.map((c) => c.kind)).toEqual(['module_header', 'class_skeleton', 'class_skeleton', 'siblings']);
  });

  it('splits long sibling lists at definition boundaries', () => {
    const many = Array.from({ length: 45 }, (_, i) => `def f${i}(x):\n    """Doc ${i}."""\n    return x\n`).join('\n');
    const rm = ex.parse('many.py', 'python', many);
    const sib = rm.chunks.filter((c) => c.kind === 'siblings');
    expect(sib.map((c) => c.title)).toEqual(['functions in many (40, part 1 of 2)', 'functions in many (5, part 2 of 2)']);
    expect(sib[0]!.text.startsWith('def f0(x):\n    """Doc 0."""')).toBe(true);
    expect(sib[1]!.text.startsWith('def f40(x):')).toBe(true);
    expect(sib[1]!.startLine).toBe(40 * 4 + 1);

    const wide = Array.from({ length: 30 }, (_, i) => `def g${i}(${'argument_' + 'x'.repeat(150)}=${i}):\n    pass\n`).join('\n');
    const rw = ex.parse('wide.py', 'python', wide);
    const ws = rw.chunks.filter((c) => c.kind === 'siblings');
    expect(ws.length).toBeGreaterThan(1);
    for (const c of ws) expect(c.text.length).toBeLessThanOrEqual(4000);
    expect(
      ws
        .map((c) => c.text)
        .join('\n')
        .split('\n'),
    ).toHaveLength(30);
  });

  it('skips empty chunks', () => {
    expect(ex.parse('empty.py', 'python', '').chunks).toEqual([]);
    const onlyFn = ex.parse('one.py', 'python', 'def f():\n    pass\n');
    expect(onlyFn.chunks.map((c) => c.kind)).toEqual(['siblings']);
    const empty = ex.parse('empty.py', 'python', '');
    expect(empty.units).toHaveLength(1);
    expect([empty.units[0]!.startLine, empty.units[0]!.endLine]).toEqual([1, 1]);
  });
});

describe('python docstrings', () => {
  const doc = (src: string) => ex.parse('d.py', 'python', src).units[1]?.docstring;

  it('accepts all quote styles and prefixes', () => {
    expect(doc('def f():\n    """Triple double."""\n')).toBe('Triple double.');
    expect(doc("def f():\n    '''Triple single.'''\n")).toBe('Triple single.');
    expect(doc("def f():\n    'Single.'\n")).toBe('Single.');
    expect(doc('def f():\n    "Double."\n')).toBe('Double.');
    expect(doc('def f():\n    r"""Raw \\d+ stays."""\n')).toBe('Raw \\d+ stays.');
    expect(doc('def f():\n    u"""Unicode."""\n')).toBe('Unicode.');
    expect(doc('def f():\n    """One\\nTwo, quote \\" and backslash \\\\."""\n')).toBe('One\nTwo, quote " and backslash \\.');
    // cleandoc expands tabs to 8 columns, as Python does
    expect(doc('def f():\n    """Tab\\there."""\n')).toBe('Tab     here.');
    expect(doc('def f():\n    "Implicit " "concatenation."\n')).toBe('Implicit concatenation.');
  });

  it('rejects f-strings, bytes and strings that are not the first statement', () => {
    expect(doc('def f():\n    f"""Not {a} doc."""\n')).toBeNull();
    expect(doc('def f():\n    b"""Bytes."""\n')).toBeNull();
    expect(doc('def f():\n    x = 1\n    """Late."""\n')).toBeNull();
    expect(doc('def f():\n    # comment first\n    """Still doc."""\n')).toBe('Still doc.');
  });

  it('cleans like inspect.cleandoc', () => {
    const src = 'class A:\n    """  Summary line.\n\n        Indented more.\n      Less.\n\n    """\n';
    expect(doc(src)).toBe('Summary line.\n\n  Indented more.\nLess.');
  });
});

describe('python syntax errors', () => {
  const SRC = `def good_before(x):
    return x + 1

def broken(a b):
    pass

class Fine:
    def method(self):
        return 1 +

def good_after():
    """Still here."""
    return helper()
`;

  it('reports problems and keeps the definitions it could parse', () => {
    const r = ex.parse('bad.py', 'python', SRC);
    expect(r.errors.map((e) => e.line)).toEqual([4, 9]);
    for (const e of r.errors) expect(e.message).toMatch(/syntax error/);
    // `broken` has a garbage header and is skipped; `method` only has a bad body statement
    expect(r.units.map((u) => u.qualname)).toEqual(['', 'good_before', 'Fine', 'Fine.method', 'good_after']);
    expect(unit(r, 'good_after').docstring).toBe('Still here.');
    expect(unit(r, 'good_after').calls).toEqual(['helper']);
    expect([unit(r, 'good_after').startLine, unit(r, 'good_after').endLine]).toEqual([11, 13]);
    expect(unit(r, 'Fine.method').signature).toBe('def method(self)');
  });

  it('reports missing tokens', () => {
    const r = ex.parse('bad.py', 'python', 'def f(:\n    pass\n\ndef g():\n    return 2\n');
    expect(r.errors).toEqual([{ line: 1, column: 7, message: 'missing )' }]);
    expect(r.units.map((u) => u.qualname)).toEqual(['', 'g']);
  });
});

const TS = `/**
 * Geometry helpers.
 */
import { EventEmitter } from 'node:events';
import type { Options } from './options.ts';
import * as path from 'node:path';

export const DEFAULT_SIZE = 10;
export type Point = { x: number; y: number };

/** Something with an area. */
export interface Shape<T = number> extends HasName {
  area(): T;
  readonly name: string;
}

/**
 * A generic container.
 * @typeParam T - item type
 */
@sealed
export class Box<T extends object> extends EventEmitter implements Shape<T> {
  static count = 0;
  private items: T[] = [];

  constructor(private readonly label: string, size = DEFAULT_SIZE) {
    super();
    Box.count++;
  }

  /** Adds items. */
  @logged('add')
  add(item: T, ...more: T[]): this {
    this.items.push(item, ...more);
    this.emit('add', item);
    return this;
  }

  get size(): number {
    return this.items.length;
  }

  /** Finds an item. */
  find(key: string): T | undefined;
  find(index: number): T | undefined;
  find(q: string | number, opts?: Options): T | undefined {
    return this.items.find((it) => matches(it, q));
  }

  onClick = async (event: MouseEvent): Promise<void> => {
    await this.handle(event);
  };
}

export function area(w: number, h: number = w): number {
  return w * h;
}

/** Scales a point. */
export const scale = <P extends Point>({ x, y }: P, factor = 2): Point => ({ x: x * factor, y: y * factor });

export default async function* generate(limit?: number) {
  for (let i = 0; i < (limit ?? 3); i++) yield new Box(String(i));
}
`;

describe('typescript', () => {
  let r: ParseResult;
  beforeAll(() => {
    r = ex.parse('src/geometry/index.ts', 'typescript', TS);
  });

  it('lists units with kinds and qualnames', () => {
    expect(r.module).toBe('src.geometry');
    expect(r.errors).toEqual([]);
    expect(r.units.map((u) => [u.kind, u.qualname, u.parentQualname])).toEqual([
      ['module', '', null],
      ['class', 'Shape', null],
      ['class', 'Box', null],
      ['method', 'Box.constructor', 'Box'],
      ['method', 'Box.add', 'Box'],
      ['method', 'Box.size', 'Box'],
      ['method', 'Box.find', 'Box'],
      ['method', 'Box.onClick', 'Box'],
      ['function', 'area', null],
      ['function', 'scale', null],
      ['function', 'generate', null],
    ]);
  });

  it('uses a detached leading JSDoc as the module docstring and records imports', () => {
    const m = unit(r, '');
    expect(m.docstring).toBe('Geometry helpers.');
    expect(m.imports).toEqual(['node:events#EventEmitter', './options.ts#Options', 'node:path']);
    expect(m.calls).toEqual([]);
  });

  it('records interfaces as class units', () => {
    const s = unit(r, 'Shape');
    expect(s.signature).toBe('interface Shape<T = number> extends HasName');
    expect(s.docstring).toBe('Something with an area.');
    expect([s.startLine, s.endLine]).toEqual([12, 15]);
    expect(r.units.some((u) => u.qualname === 'Shape.area')).toBe(false);
  });

  it('extracts a generic decorated class with its JSDoc', () => {
    const b = unit(r, 'Box');
    expect(b.signature).toBe('class Box<T extends object> extends EventEmitter implements Shape<T>');
    expect(b.decorators).toEqual(['sealed']);
    expect(b.docstring).toBe('A generic container.\n@typeParam T - item type');
    expect([b.startLine, b.endLine]).toEqual([21, 53]);
    expect(b.body.startsWith('@sealed\nexport class Box<T extends object>')).toBe(true);
  });

  it('extracts constructor parameter properties and defaults', () => {
    const c = unit(r, 'Box.constructor');
    expect(c.signature).toBe('constructor(private readonly label: string, size = DEFAULT_SIZE)');
    expect(c.params).toEqual([
      { name: 'label', kind: 'positional_or_keyword', annotation: 'string', default: null },
      { name: 'size', kind: 'positional_or_keyword', annotation: null, default: 'DEFAULT_SIZE' },
    ]);
    expect(c.calls).toEqual(['super']);
  });

  it('extracts decorated methods with rest parameters', () => {
    const a = unit(r, 'Box.add');
    expect(a.signature).toBe('add(item: T, ...more: T[]): this');
    expect(a.decorators).toEqual(["logged('add')"]);
    expect(a.docstring).toBe('Adds items.');
    expect(a.params).toEqual([
      { name: 'item', kind: 'positional_or_keyword', annotation: 'T', default: null },
      { name: 'more', kind: 'var_positional', annotation: 'T[]', default: null },
    ]);
    expect(a.returns).toBe('this');
    expect([a.startLine, a.endLine]).toEqual([32, 37]);
    expect(a.calls).toEqual(['logged', 'this.items.push', 'this.emit']);
    expect(a.body).toBe("@logged('add')\nadd(item: T, ...more: T[]): this {\n  this.items.push(item, ...more);\n  this.emit('add', item);\n  return this;\n}");
  });

  it('extracts getters, overloads and optional parameters', () => {
    expect(unit(r, 'Box.size').signature).toBe('get size(): number');
    const f = unit(r, 'Box.find');
    expect(f.signature).toBe('find(q: string | number, opts?: Options): T | undefined');
    expect(f.overloads).toEqual(['find(key: string): T | undefined', 'find(index: number): T | undefined']);
    expect(f.docstring).toBe('Finds an item.');
    expect(f.params).toEqual([
      { name: 'q', kind: 'positional_or_keyword', annotation: 'string | number', default: null },
      { name: 'opts', kind: 'positional_or_keyword', annotation: 'Options', default: null, optional: true },
    ]);
    expect(f.calls).toEqual(['this.items.find', 'matches']);
    expect([f.startLine, f.endLine]).toEqual([46, 48]);
  });

  it('treats arrow-function class fields as methods', () => {
    const o = unit(r, 'Box.onClick');
    expect(o.signature).toBe('onClick = async (event: MouseEvent): Promise<void> =>');
    expect(o.isAsync).toBe(true);
    expect(o.returns).toBe('Promise<void>');
    expect(o.calls).toEqual(['this.handle']);
  });

  it('extracts exported functions, arrow functions and default generators', () => {
    const a = unit(r, 'area');
    expect(a.signature).toBe('function area(w: number, h: number = w): number');
    expect(a.params[1]).toEqual({ name: 'h', kind: 'positional_or_keyword', annotation: 'number', default: 'w' });
    const s = unit(r, 'scale');
    expect(s.signature).toBe('const scale = <P extends Point>({ x, y }: P, factor = 2): Point =>');
    expect(s.params).toEqual([
      { name: '{ x, y }', kind: 'positional_or_keyword', annotation: 'P', default: null },
      { name: 'factor', kind: 'positional_or_keyword', annotation: null, default: '2' },
    ]);
    expect(s.docstring).toBe('Scales a point.');
    expect([s.startLine, s.endLine]).toEqual([60, 60]);
    const g = unit(r, 'generate');
    expect(g.signature).toBe('async function* generate(limit?: number)');
    expect(g.isAsync).toBe(true);
    expect(g.calls).toEqual(['Box', 'String']);
  });

  it('builds header, skeleton and siblings chunks', () => {
    expect(chunk(r, 'module_header').text).toBe(
      [
        '/**',
        ' * Geometry helpers.',
        ' */',
        "import { EventEmitter } from 'node:events';",
        "import type { Options } from './options.ts';",
        "import * as path from 'node:path';",
        'export const DEFAULT_SIZE = 10;',
        'export type Point = { x: number; y: number };',
      ].join('\n'),
    );
    expect(chunk(r, 'class_skeleton', 'Shape').title).toBe('interface Shape');
    expect(chunk(r, 'class_skeleton', 'Shape').text).toBe(
      '/** Something with an area. */\ninterface Shape<T = number> extends HasName {\n  area(): T;\n  readonly name: string;\n}',
    );
    expect(chunk(r, 'class_skeleton', 'Box').text).toBe(
      [
        '/**',
        ' * A generic container.',
        ' * @typeParam T - item type',
        ' */',
        '@sealed',
        'class Box<T extends object> extends EventEmitter implements Shape<T> {',
        '  static count = 0;',
        '  private items: T[] = [];',
        '  constructor(private readonly label: string, size = DEFAULT_SIZE);',
        '  /** Adds items. */',
        "  @logged('add')",
        '  add(item: T, ...more: T[]): this;',
        '  get size(): number;',
        '  /** Finds an item. */',
        '  find(key: string): T | undefined;',
        '  find(index: number): T | undefined;',
        '  onClick = async (event: MouseEvent): Promise<void> => …;',
        '}',
      ].join('\n'),
    );
    const s = chunk(r, 'siblings');
    expect(s.title).toBe('functions in src.geometry (3)');
    expect(s.text).toBe(
      [
        'function area(w: number, h: number = w): number;',
        '/** Scales a point. */',
        'const scale = <P extends Point>({ x, y }: P, factor = 2): Point => …;',
        'async function* generate(limit?: number);',
      ].join('\n'),
    );
    expect([s.startLine, s.endLine]).toEqual([55, 64]);
  });

  it('handles top-level overloads, ambient declarations, abstract members and nested functions', () => {
    const src = `/** Overloaded. */
export function pick(a: string): string;
export function pick(a: number): number;
export function pick(a: any) {
  const inner = (x: any) => String(x);
  return inner(a);
}
declare function ambient(x: number): void;
export abstract class Base {
  abstract run(): void;
  protected helper() {}
}
`;
    const r2 = ex.parse('o.ts', 'typescript', src);
    expect(r2.units.map((u) => [u.kind, u.qualname])).toEqual([
      ['module', ''],
      ['function', 'pick'],
      ['function', 'pick.<locals>.inner'],
      ['function', 'ambient'],
      ['class', 'Base'],
      ['method', 'Base.run'],
      ['method', 'Base.helper'],
    ]);
    const pick = unit(r2, 'pick');
    expect(pick.overloads).toEqual(['function pick(a: string): string', 'function pick(a: number): number']);
    expect(pick.docstring).toBe('Overloaded.');
    expect(pick.calls).toEqual(['inner']);
    expect(unit(r2, 'pick.<locals>.inner').calls).toEqual(['String']);
    expect(unit(r2, 'ambient').signature).toBe('function ambient(x: number): void');
    expect(unit(r2, 'Base.run').signature).toBe('abstract run(): void');
    expect(unit(r2, 'Base').signature).toBe('abstract class Base');
  });

  it('parses TSX components', () => {
    const src =
      "import React from 'react';\nexport const Button = ({ label, onClick }: Props) => <button onClick={() => onClick(label)}>{format(label)}</button>;\n";
    const rx = ex.parse('ui/Button.tsx', 'tsx', src);
    expect(rx.errors).toEqual([]);
    const b = unit(rx, 'Button');
    expect(b.signature).toBe('const Button = ({ label, onClick }: Props) =>');
    expect(b.calls).toEqual(['onClick', 'format']);
    expect(unit(rx, '').imports).toEqual(['react#default']);
  });

  it('reports syntax errors and keeps intact definitions', () => {
    const src = 'function ok(a: number) {\n  return a;\n}\nfunction bad(a: number {\n  return a;\n}\nfunction alsoOk() {\n  return 1;\n}\n';
    const rb = ex.parse('e.ts', 'typescript', src);
    expect(rb.errors.length).toBeGreaterThan(0);
    expect(rb.errors[0]!.line).toBe(4);
    const names = rb.units.map((u) => u.qualname);
    expect(names).toContain('ok');
    expect(names).toContain('alsoOk');
  });
});

describe('javascript', () => {
  const CJS = `'use strict';
const fs = require("fs"), { join } = require("path");
/** Class A. */
class A extends B {
  static x = 1;
  #secret = 2;
  /** The y. */
  get y() { return this.#secret; }
  set y(v) { this.#secret = v; }
  *gen() {}
  async load(file = "a.txt", ...rest) { return fs.promises.readFile(join(file)); }
  static { init(); }
}
/** Exported f. */
exports.f = function (a, {b, c} = {}) { return a.b(); };
module.exports.g = (x) => x * 2;
A.prototype.q = async function q() { return other(); };
module.exports = { A };
`;

  it('handles CommonJS exports, prototype methods, class fields and accessors', () => {
    const r = ex.parse('lib/index.js', 'javascript', CJS);
    expect(r.module).toBe('lib');
    expect(r.errors).toEqual([]);
    expect(r.units.map((u) => [u.kind, u.qualname])).toEqual([
      ['module', ''],
      ['class', 'A'],
      ['method', 'A.y'],
      ['method', 'A.y'],
      ['method', 'A.gen'],
      ['method', 'A.load'],
      ['function', 'f'],
      ['function', 'g'],
      ['method', 'A.q'],
    ]);
    expect(unit(r, '').imports).toEqual(['fs', 'path']);
    expect(unit(r, '').calls).toEqual(['require']);
    expect(unit(r, 'A').docstring).toBe('Class A.');
    expect(unit(r, 'A').calls).toEqual(['init']);
    expect(unit(r, 'A.y', 0).signature).toBe('get y()');
    expect(unit(r, 'A.y', 0).docstring).toBe('The y.');
    expect(unit(r, 'A.y', 1).signature).toBe('set y(v)');
    const load = unit(r, 'A.load');
    expect(load.isAsync).toBe(true);
    expect(load.params).toEqual([
      { name: 'file', kind: 'positional_or_keyword', annotation: null, default: '"a.txt"' },
      { name: 'rest', kind: 'var_positional', annotation: null, default: null },
    ]);
    expect(load.calls).toEqual(['fs.promises.readFile', 'join']);
    const f = unit(r, 'f');
    expect(f.signature).toBe('exports.f = function (a, {b, c} = {})');
    expect(f.docstring).toBe('Exported f.');
    expect(f.params[1]).toEqual({ name: '{b, c}', kind: 'positional_or_keyword', annotation: null, default: '{}' });
    expect(f.calls).toEqual(['a.b']);
    expect(unit(r, 'g').signature).toBe('module.exports.g = (x) =>');
    const q = unit(r, 'A.q');
    expect(q.parentQualname).toBe('A');
    expect(q.isAsync).toBe(true);
    expect(q.calls).toEqual(['other']);
    const skel = chunk(r, 'class_skeleton', 'A').text;
    expect(skel).toBe(
      [
        '/** Class A. */',
        'class A extends B {',
        '  static x = 1;',
        '  #secret = 2;',
        '  /** The y. */',
        '  get y();',
        '  set y(v);',
        '  *gen();',
        '  async load(file = "a.txt", ...rest);',
        '}',
      ].join('\n'),
    );
    expect(chunk(r, 'module_header').text).toBe('const fs = require("fs"), { join } = require("path");\nmodule.exports = { A };');
  });

  it('handles ESM default exports, generators and dynamic imports', () => {
    const src = `import def, { named as alias } from './dep.js';
export * from './all.js';
export { thing } from './things.js';
export default class { run() { return go(); } }
export function* ids() { yield* other(); }
const lazy = () => import('./lazy.js');
`;
    const r = ex.parse('src/esm.mjs', 'javascript', src);
    expect(r.units.map((u) => [u.kind, u.qualname])).toEqual([
      ['module', ''],
      ['class', 'default'],
      ['method', 'default.run'],
      ['function', 'ids'],
      ['function', 'lazy'],
    ]);
    expect(unit(r, '').imports).toEqual(['./dep.js#default', './dep.js#named', './all.js#*', './things.js#thing']);
    expect(unit(r, 'default').signature).toBe('export default class');
    expect(unit(r, 'ids').signature).toBe('function* ids()');
    expect(unit(r, 'ids').calls).toEqual(['other']);
    expect(unit(r, 'lazy').imports).toEqual(['./lazy.js']);
  });
});

describe('runtime', () => {
  it('works inside a worker thread', async () => {
    const req = createRequire(import.meta.url);
    // the worker needs tsx's ESM loader to import .ts files; find its entry through tsx's export map
    const tsxPkgFile = req.resolve('tsx/package.json');
    const tsxPkg = JSON.parse(readFileSync(tsxPkgFile, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
    const tsxApi = pathToFileURL(path.join(path.dirname(tsxPkgFile), tsxPkg.exports['./esm/api']!.import.default)).href;
    const extractUrl = new URL('../../main/index/extract.ts', import.meta.url).href;
    const code = `
const { parentPort } = require('node:worker_threads');
(async () => {
  const { register } = await import(${JSON.stringify(tsxApi)});
  register();
  const { createExtractor } = await import(${JSON.stringify(extractUrl)});
  const ex = await createExtractor();
  const r = ex.parse('a/b.py', 'python', 'def f(x):\\n    return g(x)\\n');
  ex.dispose();
  parentPort.postMessage(r.units.map((u) => u.qualname + ':' + u.calls.join(',')));
})().catch((e) => parentPort.postMessage('error: ' + (e && e.stack)));
`;
    const worker = new Worker(code, { eval: true });
    try {
      const msg = await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      expect(msg).toEqual([':', 'f:g']);
    } finally {
      await worker.terminate();
    }
  });

  it('parses many files with one extractor without leaking state between them', () => {
    const a = ex.parse('a.py', 'python', 'def a():\n    x()\n');
    ex.parse('b.ts', 'typescript', 'function b() { y(); }\n');
    const a2 = ex.parse('a.py', 'python', 'def a():\n    x()\n');
    expect(a2).toEqual(a);
  });
});

function pythonStdlib(): string | null {
  try {
    const dir = execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
    return dir && existsSync(path.join(dir, 'textwrap.py')) ? dir : null;
  } catch {
    return null;
  }
}

const stdlib = pythonStdlib();

describe('real stdlib file', () => {
  it.skipIf(!stdlib)(`parses textwrap.py${stdlib ? '' : ' [skipped: no Python standard library found]'}`, () => {
    const file = path.join(stdlib!, 'textwrap.py');
    const r = ex.parse('textwrap.py', 'python', readFileSync(file, 'utf8'));
    expect(r.errors).toEqual([]);
    expect(r.module).toBe('textwrap');
    const wrapChunks = unit(r, 'TextWrapper._wrap_chunks');
    expect(wrapChunks.kind).toBe('method');
    expect(wrapChunks.signature).toBe('def _wrap_chunks(self, chunks)');
    expect(wrapChunks.docstring?.startsWith('_wrap_chunks(chunks : [string]) -> [string]')).toBe(true);
    const dedent = unit(r, 'dedent');
    expect(dedent.kind).toBe('function');
    expect(dedent.signature).toBe('def dedent(text)');
    expect(dedent.calls).toContain('_whitespace_only_re.sub');
    expect(unit(r, '').imports).toEqual(['re']);
    expect(r.chunks.some((c) => c.kind === 'class_skeleton' && c.owner === 'TextWrapper')).toBe(true);
  });
  if (!stdlib) it('notes the missing stdlib', () => console.warn('python3 stdlib with textwrap.py not found; real-file test skipped'));
});

describe('python values (module constants and class attributes)', () => {
  const SRC = `"""Settings."""
import os

__all__ = ["Config"]
__version__ = "1.0"
LIMIT = 3
TIMEOUT: float = 2.5
A = B = "same"
x, y = 1, 2
obj.attr = 4
COUNT += 1
square = lambda v: v * v
DECLARED: int
TABLE = {
    "a": 1,
    "b": 2,
    "c": 3,
    "d": 4,
    "e": 5,
}
LIMIT = 4


class Config:
    """Holds settings."""

    __slots__ = ("name",)
    name: str
    retries: int = 3
    handler = lambda self: None

    def method(self):
        local = 1
        self.inst = 2

    class Inner:
        depth = 1

    after = "x"


def f():
    class Local:
        hidden = 1
    inner_const = 2
`;
  let r: ParseResult;
  beforeAll(() => {
    r = ex.parse('app/settings.py', 'python', SRC);
  });

  it('extracts module constants with qualnames and lines, skipping dunders, lambdas, tuples and attribute targets', () => {
    const constants = r.values.filter((v) => v.kind === 'constant');
    expect(constants.map((v) => [v.qualname, v.startLine, v.endLine])).toEqual([
      ['LIMIT', 6, 6],
      ['TIMEOUT', 7, 7],
      ['A', 8, 8],
      ['B', 8, 8],
      ['TABLE', 14, 20],
    ]);
    for (const v of constants) {
      expect(v.owner).toBeNull();
      expect(v.name).toBe(v.qualname);
    }
    const limit = r.values.find((v) => v.qualname === 'LIMIT')!;
    // The first binding is kept; the later rebind is not a second API.
    expect(limit.text).toBe('LIMIT = 3');
    expect(r.values.find((v) => v.qualname === 'TIMEOUT')!.text).toBe('TIMEOUT: float = 2.5');
    expect(r.values.find((v) => v.qualname === 'B')!.text).toBe('A = B = "same"');
    // The text is capped to five lines.
    expect(r.values.find((v) => v.qualname === 'TABLE')!.text).toBe('TABLE = {\n    "a": 1,\n    "b": 2,\n    "c": 3,\n    "d": 4, ...');
    // The lambda stays a function unit and is not also a constant.
    expect(r.units.some((u) => u.qualname === 'square' && u.kind === 'function')).toBe(true);
  });

  it('extracts class attributes, including nested classes and annotation-only fields, in source order', () => {
    const attrs = r.values.filter((v) => v.kind === 'attribute');
    expect(attrs.map((v) => [v.qualname, v.owner, v.startLine])).toEqual([
      ['Config.name', 'Config', 28],
      ['Config.retries', 'Config', 29],
      ['Config.handler', 'Config', 30],
      ['Config.Inner.depth', 'Config.Inner', 37],
      ['Config.after', 'Config', 39],
      ['f.<locals>.Local.hidden', 'f.<locals>.Local', 44],
    ]);
    const retries = attrs.find((v) => v.qualname === 'Config.retries')!;
    expect(retries).toMatchObject({ name: 'retries', text: 'retries: int = 3', endLine: 29 });
    // Nothing from function bodies (locals, self.x), no dunders.
    expect(r.values.some((v) => ['local', 'inst', 'inner_const', '__slots__'].includes(v.name))).toBe(false);
    expect(r.values.map((v) => v.startLine)).toEqual([...r.values.map((v) => v.startLine)].sort((a, b) => a - b));
  });

  it('leaves the class skeleton and module header as they were', () => {
    expect(chunk(r, 'class_skeleton', 'Config').text).toContain('    retries: int = 3');
    expect(chunk(r, 'module_header').text).toContain('LIMIT = 3');
  });

  it('gives TypeScript and JavaScript files no values', () => {
    const ts = ex.parse('src/a.ts', 'typescript', 'export const LIMIT = 3;\nexport class A {\n  x = 1;\n  static y: number = 2;\n}\n');
    expect(ts.values).toEqual([]);
    const js = ex.parse('src/b.js', 'javascript', 'const LIMIT = 3;\nmodule.exports = { LIMIT };\n');
    expect(js.values).toEqual([]);
  });
});
