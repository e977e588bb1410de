import { describe, expect, it } from 'vitest';
import { extractCode } from '../../main/generate/extract.ts';

const F = 'def add(a, b):\n    return a + b\n';

describe('extractCode', () => {
  it('takes fences of any language tag, or none', () => {
    for (const tag of ['python', 'py', 'Python3', 'python title="add.py"', '', 'text']) {
      expect(extractCode(`\`\`\`${tag}\n${F}\`\`\``, { name: 'add' }).code, tag).toBe(F);
    }
    expect(extractCode(`~~~python\n${F}~~~`).code).toBe(F);
    expect(extractCode(`\`\`\`\`python\n${F}\`\`\`\``).code).toBe(F);
  });

  it('drops prose around the code', () => {
    const r = extractCode(`Sure! Here is the function:\n\n\`\`\`python\n${F}\`\`\`\n\nIt adds two numbers. Let me know!`, { name: 'add' });
    expect(r).toMatchObject({ code: F, ok: true, blocks: 1 });
  });

  it('finds the definition in an unfenced reply with prose before and after', () => {
    const reply = `Here is my answer.\n\nimport math\n\ndef add(a, b):\n    # sum\n    return a + b\n\nThis works for ints and floats.`;
    const r = extractCode(reply, { name: 'add' });
    expect(r.code).toBe('import math\n\ndef add(a, b):\n    # sum\n    return a + b\n');
    expect(r.note).toMatch(/no fence/);
    expect(extractCode(F).code).toBe(F);
  });

  it('picks the block that defines the target among several, with imports from an earlier block', () => {
    const reply = [
      'First the imports:',
      '```python\nfrom decimal import Decimal\n```',
      'A first try:',
      '```python\ndef add(a, b):\n    return a - b\n```',
      'Better:',
      '```python\ndef add(a, b):\n    return Decimal(a) + b\n```',
      'Usage:',
      '```python\nprint(add(1, 2))\n```',
    ].join('\n');
    const r = extractCode(reply, { name: 'add' });
    expect(r.code).toBe('from decimal import Decimal\n\ndef add(a, b):\n    return Decimal(a) + b\n');
    expect(r.blocks).toBe(4);
    expect(r.note).toMatch(/block 3 of 4, the last one defining add \+ imports/);
  });

  it('keeps an unclosed fence (reply cut off) and says so', () => {
    const r = extractCode('```python\ndef add(a, b):\n    return a +', { name: 'add' });
    expect(r.code).toBe('def add(a, b):\n    return a +\n');
    expect(r.note).toMatch(/not closed/);
  });

  it('cuts a method out of a class the model wrapped it in, dedented', () => {
    const reply =
      '```python\nclass Money:\n    @property\n    def cents(self):\n        return 1\n\n    def multiply(self, factor):\n        return Money(self.cents * factor)\n```';
    const r = extractCode(reply, { name: 'multiply', qualname: 'Money.multiply' });
    expect(r.code).toBe('def multiply(self, factor):\n    return Money(self.cents * factor)\n');
    expect(r.note).toMatch(/method cut out of its class/);
    // an indented method on its own is dedented
    expect(extractCode('```python\n    def multiply(self, f):\n        return f\n```', { name: 'multiply', qualname: 'Money.multiply' }).code).toBe(
      'def multiply(self, f):\n    return f\n',
    );
  });

  it('reports replies without code instead of returning empty code silently', () => {
    expect(extractCode('')).toMatchObject({ ok: false, note: 'empty reply' });
    expect(extractCode('I am sorry, I cannot do that.')).toMatchObject({ ok: false, code: '', note: 'no code in the reply' });
    expect(extractCode('```python\n\n```')).toMatchObject({ ok: false });
  });

  it('handles CRLF and inline triple backticks in prose', () => {
    expect(extractCode('Use ```add``` like this:\r\n```python\r\ndef add(a, b):\r\n    return a + b\r\n```\r\n', { name: 'add' }).code).toBe(F);
  });
});
