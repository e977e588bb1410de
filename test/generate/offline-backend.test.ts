// The offline retrieve-and-adapt backend on a hand-made trace from the bundled sample repository.

import { describe, expect, it } from 'vitest';
import { OfflineBackend } from '../../main/generate/offline-backend.ts';
import { parseFirstDef, renameIdentifiers } from '../../main/generate/python-source.ts';
import { generateCandidates, llmDecomposer, makeRepairer, repairCandidates } from '../../main/generate/generate.ts';
import { normaliseCandidates } from '../../main/generate/normalise.ts';
import { LlmError } from '../../main/generate/errors.ts';
import { makeConfig } from '../../main/model/config.ts';
import { handMadeTrace, SAMPLE_TASK } from './trace-fixture.ts';

describe('offline backend', () => {
  const backend = new OfflineBackend();

  it('adapts similar code and API evidence to the target signature, labelled as offline', async () => {
    const set = await generateCandidates(SAMPLE_TASK, handMadeTrace(), { backend });
    expect(set.candidates).toHaveLength(5);
    expect(set.backend).toMatchObject({ provider: 'offline', id: 'offline:retrieve-and-adapt@1' });
    expect(set.backend.label).toBe('no model (retrieval-only baseline)');
    expect(set.candidates.every((c) => c.origin?.startsWith('offline: ') && /no language model was used/.test(c.reply))).toBe(true);
    // the least uncertain similar code first, renamed to the target's parameters
    const first = set.candidates[0]!;
    expect(first.origin).toMatch(/adapted from inventory\.pricing\.tax_included .*gross → amount/);
    expect(first.code).toBe(
      'def add_tax(amount: Money, tax_class: str = "standard") -> Money:\n' +
        '    rate = tax_rate(tax_class)\n' +
        '    net = _round_half_up(Decimal(amount.cents) / (1 + rate))\n' +
        '    return Money.from_cents(amount.cents - net, amount.currency)\n',
    );
    // an API that returns what the target returns becomes a wrapper; one returning something else does not
    expect(set.candidates[1]!.origin).toMatch(/delegates to inventory\.money\.Money\.from_cents/);
    expect(set.candidates.some((c) => /delegates to inventory\.pricing\.tax_rate/.test(c.origin ?? ''))).toBe(false);
    // the donor's docstring is not carried over
    expect(set.candidates[2]!.code).not.toMatch(/per cent off/);
    expect(set.warnings.join('\n')).toMatch(/3 distinct proposals, repeated to make 5 candidates/);
    expect(set.usage).toMatchObject({ inputTokens: 0, outputTokens: 0, source: 'zero' });
    expect(set.cost).toMatchObject({ usd: 0, note: 'no model called: 0' });
    // every proposal is valid Python
    const { items } = await normaliseCandidates(set.candidates.map((c) => c.code));
    expect(items.every((x) => x.method === 'ast')).toBe(true);
  });

  it('is deterministic', async () => {
    const a = await generateCandidates(SAMPLE_TASK, handMadeTrace(), { backend });
    const b = await generateCandidates(SAMPLE_TASK, handMadeTrace(), { backend });
    expect(b.candidates).toEqual(a.candidates);
    expect(b.uncertainty).toEqual(a.uncertainty);
  });

  it('follows fused order for Baseline RAG and uncertainty order when guided', async () => {
    const t = handMadeTrace();
    // make the more relevant donor the more uncertain one
    for (const e of t.fused) if (e.title.endsWith('apply_discount')) Object.assign(e, { gamma: 0.9, u: 0.45 });
    t.fused.sort((a, b) => b.gamma - a.gamma);
    const guided = await generateCandidates(SAMPLE_TASK, t, { backend });
    const base = await generateCandidates(SAMPLE_TASK, t, { backend, config: makeConfig({ generation: { uncertaintyGuided: false } }) });
    expect(guided.candidates[0]!.origin).toMatch(/tax_included/);
    expect(base.candidates[0]!.origin).toMatch(/apply_discount/);
    expect(base.prompt.kind).toBe('baseline');
  });

  it('repairs with a proposal other than the failing one', async () => {
    const first = (await generateCandidates(SAMPLE_TASK, handMadeTrace(), { backend })).candidates[0]!;
    const fixed = await repairCandidates(
      {
        task: SAMPLE_TASK,
        trace: handMadeTrace(),
        guided: true,
        candidate: first.code,
        findings: [],
        testOutput: 'FAIL: test_add_tax_standard_rate',
        round: 1,
      },
      { backend },
    );
    expect(fixed.purpose).toBe('repair');
    expect(fixed.candidates).toHaveLength(1);
    expect(fixed.candidates[0]!.code).not.toBe(first.code);
  });

  it("serves as the validator's repair function", async () => {
    const repair = makeRepairer({ backend, trace: handMadeTrace() });
    const failing = (await generateCandidates(SAMPLE_TASK, handMadeTrace(), { backend })).candidates[0]!.code;
    const code = await repair({
      task: SAMPLE_TASK,
      round: 1,
      code: failing,
      staticFindings: [{ kind: 'undefined-name', message: "undefined name 'x'", line: 2 }],
      failingOutput: 'FAIL',
    });
    expect(code).toMatch(/^def add_tax\(/);
    expect(code).not.toBe(failing);
  });

  it('says so when there is nothing to adapt, with a stub that raises', async () => {
    const set = await generateCandidates(SAMPLE_TASK, null, { backend, config: makeConfig({ generation: { candidates: 1 } }) });
    expect(set.candidates[0]!.code).toMatch(/raise NotImplementedError\("offline backend: no similar code or API evidence to adapt"\)/);
    expect(set.warnings.join()).toMatch(/returned a stub/);
  });

  it('decomposes deterministically into valid steps', async () => {
    const steps = await llmDecomposer(backend).decompose(
      { requirement: SAMPLE_TASK.requirement, signature: SAMPLE_TASK.signature },
      { minSteps: 2, maxSteps: 6 },
    );
    expect(steps.length).toBeGreaterThanOrEqual(2);
    expect(steps.length).toBeLessThanOrEqual(6);
    for (const s of steps) expect(s.weights!.api! + s.weights!.context! + s.weights!.similar!).toBeCloseTo(1, 12);
    const one = await llmDecomposer(backend).decompose({ requirement: 'Add.', signature: 'def add(a, b):' }, { minSteps: 2, maxSteps: 6 });
    expect(one).toHaveLength(2);
  });

  it('cannot answer free text', async () => {
    await expect(backend.chat({ messages: [{ role: 'user', content: 'hi' }], n: 1, temperature: 0, maxTokens: 5 })).rejects.toBeInstanceOf(LlmError);
  });
});

describe('offline adaptation helpers', () => {
  it('renames identifiers but not attributes, keyword arguments, strings or comments', () => {
    const src = "total = gross.gross + f(gross=gross)  # gross\nmsg = 'gross'\nreturn gross";
    expect(renameIdentifiers(src, new Map([['gross', 'amount']]))).toBe("total = amount.gross + f(gross=amount)  # gross\nmsg = 'gross'\nreturn amount");
  });

  it('parses signatures with every parameter kind', () => {
    const d = parseFirstDef(
      '@dec\nasync def price_line(catalog: Catalog, sku: str, /, quantity: int = 1, *rules: PriceRule, include_tax: bool = True, **kw) -> dict[str, int]:\n    pass',
    )!;
    expect(d.name).toBe('price_line');
    expect(d.isAsync).toBe(true);
    expect(d.returns).toBe('dict[str, int]');
    expect(d.params.map((p) => `${p.kind}:${p.name}${p.keywordOnly ? '!' : ''}${p.default ? `=${p.default}` : ''}`)).toEqual([
      'normal:catalog',
      'normal:sku',
      'posonly-marker:/',
      'normal:quantity=1',
      'star:rules',
      'normal:include_tax!=True',
      'double:kw',
    ]);
  });
});
