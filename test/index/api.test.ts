import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApiEntries, nameWords, renderParams } from '../../main/index/api.ts';
import { createExtractor, type Extractor } from '../../main/index/extract.ts';
import type { ApiEntry, ParseResult } from '../../main/model/code.ts';

let ex: Extractor;
beforeAll(async () => {
  ex = await createExtractor();
});
afterAll(() => ex.dispose());

function entry(entries: ApiEntry[], qualname: string): ApiEntry {
  const e = entries.find((x) => x.qualname === qualname);
  if (!e) throw new Error(`no entry ${qualname}; have ${entries.map((x) => x.qualname).join(', ')}`);
  return e;
}

const PY = `"""Shapes."""

class Shape(Base, Generic[T]):
    """A shape.

    Has an area.
    """

    def __init__(self, width: float, height: float = 1.0, *, name=None):
        self.width = width

    @property
    def area(self) -> float:
        return self.width * self.height

    @staticmethod
    def unit() -> "Shape":
        """Return the unit square."""
        return Shape(1.0)

    @classmethod
    def from_pair(cls, pair, /):
        return cls(*pair)

    def _scale_by(self, factor):
        def helper(x):
            return x * factor
        return helper(self.width)

    class Meta:
        pass


def parse_shape_spec(spec: str, *args, strict: bool = False, **kw) -> Shape:
    return Shape(float(spec))


async def fetchRemoteShape(url):
    return await get(url)


class Plain:
    pass
`;

describe('buildApiEntries (python)', () => {
  let r: ParseResult;
  let entries: ApiEntry[];
  beforeAll(() => {
    r = ex.parse('geo/shapes.py', 'python', PY);
    entries = buildApiEntries(r);
  });

  it('emits one entry per class, method and function, skipping modules and <locals>', () => {
    expect(entries.map((e) => [e.kind, e.qualname, e.owner])).toEqual([
      ['class', 'Shape', null],
      ['method', 'Shape.__init__', 'Shape'],
      ['method', 'Shape.area', 'Shape'],
      ['method', 'Shape.unit', 'Shape'],
      ['method', 'Shape.from_pair', 'Shape'],
      ['method', 'Shape._scale_by', 'Shape'],
      ['class', 'Shape.Meta', 'Shape'],
      ['function', 'parse_shape_spec', null],
      ['function', 'fetchRemoteShape', null],
      ['class', 'Plain', null],
    ]);
    expect(r.units.some((u) => u.qualname === 'Shape._scale_by.<locals>.helper')).toBe(true);
    for (const e of entries) expect(e.module).toBe('geo.shapes');
  });

  it('gives classes their constructor parameters without self', () => {
    const shape = entry(entries, 'Shape');
    expect(shape.signature).toBe('class Shape(Base, Generic[T]); Shape(width: float, height: float = 1.0, *, name=None)');
    expect(shape.description).toBe('A shape.\n\nHas an area.');
    expect(shape.descriptionSource).toBe('docstring');
    expect(shape.text).toBe(
      'geo.shapes.Shape\nclass Shape(Base, Generic[T]); Shape(width: float, height: float = 1.0, *, name=None)\nA shape.\n\nHas an area.',
    );
    // no __init__: the class header alone
    expect(entry(entries, 'Plain').signature).toBe('class Plain');
  });

  it('derives descriptions from signatures when there is no docstring', () => {
    const init = entry(entries, 'Shape.__init__');
    expect(init.descriptionSource).toBe('signature');
    expect(init.description).toBe('Method __init__ (init) of class Shape in module geo.shapes. Parameters: width: float, height: float = 1.0, *, name=None.');
    expect(entry(entries, 'Shape.area').description).toBe('Property area of class Shape in module geo.shapes. Returns float.');
    expect(entry(entries, 'Shape.from_pair').description).toBe('Class method from_pair (from pair) of class Shape in module geo.shapes. Parameters: pair, /.');
    expect(entry(entries, 'parse_shape_spec').description).toBe(
      'Function parse_shape_spec (parse shape spec) in module geo.shapes. Parameters: spec: str, *args, strict: bool = False, **kw. Returns Shape.',
    );
    expect(entry(entries, 'fetchRemoteShape').description).toBe('Async function fetchRemoteShape (fetch remote shape) in module geo.shapes. Parameters: url.');
    expect(entry(entries, 'Plain').description).toBe('Class Plain in module geo.shapes.');
    expect(entry(entries, 'Shape.Meta').description).toBe('Class Meta in module geo.shapes.');
  });

  it('keeps docstrings of static methods and private names', () => {
    const unit = entry(entries, 'Shape.unit');
    expect(unit.description).toBe('Return the unit square.');
    expect(unit.descriptionSource).toBe('docstring');
    expect(unit.signature).toBe('def unit() -> "Shape"');
    const priv = entry(entries, 'Shape._scale_by');
    expect(priv.name).toBe('_scale_by');
    expect(priv.text).toBe(
      'geo.shapes.Shape._scale_by\ndef _scale_by(self, factor)\nMethod _scale_by (scale by) of class Shape in module geo.shapes. Parameters: factor.',
    );
  });

  it('lists methods in a derived class description', () => {
    const src = 'class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        pass\n    def pop(self):\n        pass\n';
    const e = entry(buildApiEntries(ex.parse('ds.py', 'python', src)), 'Stack');
    expect(e.signature).toBe('class Stack; Stack()');
    expect(e.description).toBe('Class Stack in module ds. Constructed without arguments. Methods: push, pop.');
  });

  it('clips very long docstrings', () => {
    const long = Array.from({ length: 200 }, (_, i) => `Line ${i} of a very long docstring.`).join('\n    ');
    const e = entry(buildApiEntries(ex.parse('l.py', 'python', `def f():\n    """${long}"""\n`)), 'f');
    expect(e.description.length).toBeLessThanOrEqual(2002);
    expect(e.description.endsWith(' …')).toBe(true);
    expect(e.description.startsWith('Line 0 of a very long docstring.\nLine 1')).toBe(true);
  });
});

describe('buildApiEntries (typescript)', () => {
  const TS = `/** A queue. */
export class Queue<T> extends Base<T> {
  constructor(private capacity: number, label?: string) { super(); }
  /** Adds one item. */
  push(item: T): void {}
  get length(): number { return 0; }
  parse(s: string): T;
  parse(n: number): T;
  parse(x: any): T { return x; }
}
export const makeQueue = <T,>(...items: T[]): Queue<T> => new Queue<T>(items.length);
export interface Options { size: number }
`;

  it('builds entries with constructor signatures, getters and overloads', () => {
    const entries = buildApiEntries(ex.parse('src/queue.ts', 'typescript', TS));
    expect(entries.map((e) => [e.kind, e.qualname, e.owner])).toEqual([
      ['class', 'Queue', null],
      ['method', 'Queue.constructor', 'Queue'],
      ['method', 'Queue.push', 'Queue'],
      ['method', 'Queue.length', 'Queue'],
      ['method', 'Queue.parse', 'Queue'],
      ['function', 'makeQueue', null],
      ['class', 'Options', null],
    ]);
    const q = entry(entries, 'Queue');
    expect(q.signature).toBe('class Queue<T> extends Base<T>; Queue(capacity: number, label?: string)');
    expect(q.description).toBe('A queue.');
    expect(entry(entries, 'Queue.length').description).toBe('Getter length of class Queue in module src.queue. Returns number.');
    expect(entry(entries, 'Queue.parse').text).toBe(
      'src.queue.Queue.parse\nparse(s: string): T\nparse(n: number): T\nparse(x: any): T\nMethod parse of class Queue in module src.queue. Parameters: x: any. Returns T.',
    );
    expect(entry(entries, 'makeQueue').description).toBe('Function makeQueue (make queue) in module src.queue. Parameters: ...items: T[]. Returns Queue<T>.');
    expect(entry(entries, 'Options').description).toBe('Interface Options in module src.queue.');
    expect(entry(entries, 'Options').signature).toBe('interface Options');
  });
});

describe('helpers', () => {
  it('renders python parameter lists with / and * markers', () => {
    expect(
      renderParams(
        [
          { name: 'a', kind: 'positional_only', annotation: null, default: null },
          { name: 'b', kind: 'positional_or_keyword', annotation: 'int', default: '2' },
          { name: 'c', kind: 'keyword_only', annotation: null, default: 'None' },
          { name: 'kw', kind: 'var_keyword', annotation: 'Any', default: null },
        ],
        'python',
      ),
    ).toBe('a, /, b: int = 2, *, c=None, **kw: Any');
    expect(
      renderParams(
        [
          { name: 'args', kind: 'var_positional', annotation: null, default: null },
          { name: 'c', kind: 'keyword_only', annotation: null, default: null },
        ],
        'python',
      ),
    ).toBe('*args, c');
    expect(renderParams([{ name: 'x', kind: 'positional_only', annotation: null, default: null }], 'python')).toBe('x, /');
  });

  it('renders TS parameter lists', () => {
    expect(
      renderParams(
        [
          { name: 'a', kind: 'positional_or_keyword', annotation: 'string', default: null, optional: true },
          { name: 'b', kind: 'positional_or_keyword', annotation: null, default: '1' },
          { name: 'rest', kind: 'var_positional', annotation: 'T[]', default: null },
        ],
        'typescript',
      ),
    ).toBe('a?: string, b = 1, ...rest: T[]');
  });

  it('splits identifiers into words', () => {
    expect(nameWords('parse_header_line')).toBe('parse header line');
    expect(nameWords('getUserName')).toBe('get user name');
    expect(nameWords('HTTPServer')).toBe('http server');
    expect(nameWords('__init__')).toBe('init');
  });
});

describe('buildApiEntries (python constants and class attributes)', () => {
  const SRC = `"""Money."""
DEFAULT_CURRENCY = "EUR"
MAX_AMOUNT: int = 10 ** 9  # cap
__all__ = ["Money"]
_rates = lambda: {}
RATES = {
    "EUR": 1.0,
}


def format_money(m):
    return str(m)


class Money:
    precision: int = 2
    registry = {}

    class Meta:
        ordering = "amount"


def build():
    class Local:
        hidden = 1
    return Local


format_money = staticmethod(format_money)
`;
  let entries: ApiEntry[];
  beforeAll(() => {
    entries = buildApiEntries(ex.parse('shop/money.py', 'python', SRC));
  });

  it('emits one entry per constant and attribute after the unit entries, skipping <locals>', () => {
    expect(entries.map((e) => [e.kind, e.qualname, e.owner])).toEqual([
      ['function', '_rates', null],
      ['function', 'format_money', null],
      ['class', 'Money', null],
      ['class', 'Money.Meta', 'Money'],
      ['function', 'build', null],
      ['constant', 'DEFAULT_CURRENCY', null],
      ['constant', 'MAX_AMOUNT', null],
      ['constant', 'RATES', null],
      ['attribute', 'Money.precision', 'Money'],
      ['attribute', 'Money.registry', 'Money'],
      ['attribute', 'Money.Meta.ordering', 'Money.Meta'],
      ['constant', 'format_money', null],
    ]);
  });

  it('gives values a first-line signature, a derived description, the assignment in the text and its lines', () => {
    const max = entries.find((e) => e.qualname === 'MAX_AMOUNT')!;
    expect(max).toMatchObject({
      name: 'MAX_AMOUNT',
      module: 'shop.money',
      // a trailing comment is not part of the statement
      signature: 'MAX_AMOUNT: int = 10 ** 9',
      description: 'Constant MAX_AMOUNT (max amount) of module shop.money.',
      descriptionSource: 'signature',
      startLine: 3,
      endLine: 3,
    });
    expect(max.text).toBe('shop.money.MAX_AMOUNT\nMAX_AMOUNT: int = 10 ** 9\nConstant MAX_AMOUNT (max amount) of module shop.money.');
    const rates = entries.find((e) => e.qualname === 'RATES')!;
    expect(rates.signature).toBe('RATES = { …');
    expect([rates.startLine, rates.endLine]).toEqual([6, 8]);
    expect(rates.text).toBe('shop.money.RATES\nRATES = {\n    "EUR": 1.0,\n}\nConstant RATES of module shop.money.');
    const ordering = entries.find((e) => e.qualname === 'Money.Meta.ordering')!;
    expect(ordering).toMatchObject({
      kind: 'attribute',
      signature: 'ordering = "amount"',
      description: 'Attribute ordering of class Money.Meta in module shop.money.',
      startLine: 20,
      endLine: 20,
    });
    expect(ordering.text.startsWith('shop.money.Money.Meta.ordering\nordering = "amount"\n')).toBe(true);
  });

  it('caps long value signatures to 200 characters', () => {
    const long = `BIG = "${'x'.repeat(400)}"\n`;
    const [big] = buildApiEntries(ex.parse('m.py', 'python', long));
    expect(big!.kind).toBe('constant');
    expect(big!.signature.length).toBeLessThanOrEqual(200);
    expect(big!.signature.endsWith(' …')).toBe(true);
  });

  it('fills unit entries with their unit lines', () => {
    const money = entries.find((e) => e.qualname === 'Money')!;
    expect([money.startLine, money.endLine]).toEqual([15, 20]);
  });

  it('makes no value entries for TypeScript', () => {
    const ts = buildApiEntries(ex.parse('src/a.ts', 'typescript', 'export const LIMIT = 3;\nexport class A {\n  x = 1;\n}\n'));
    expect(ts.map((e) => e.kind)).toEqual(['class']);
  });
});
