import { describe, expect, it } from 'vitest';
import {
  buildDecompositionPrompt,
  buildGenerationPrompt,
  buildRepairPrompt,
  DecompositionError,
  parseDecomposition,
  PROMPT_TEMPLATES,
  PROMPT_VERSION,
  promptTemplatesRecord,
  render,
} from '../../main/generate/prompts.ts';
import { handMadeTrace, SAMPLE_TASK } from './trace-fixture.ts';

const userOf = (p: { messages: { role: string; content: string }[] }) => p.messages.find((m) => m.role === 'user')!.content;

describe('generation prompts', () => {
  const trace = handMadeTrace();

  it("uncertainty-guided: evidence grouped by source with each item's u, the trace [ū_A, ū_X, ū_S] and the instruction", () => {
    const p = buildGenerationPrompt(SAMPLE_TASK, trace, { guided: true });
    const text = userOf(p);
    expect(p.kind).toBe('uncertainty-guided');
    expect(p.version).toBe(PROMPT_VERSION);
    expect(text).toContain('ū_A (API knowledge) = 0.20 · ū_X (repository context) = 0.25 · ū_S (similar code) = 0.30');
    expect(text).toMatch(/Prefer low-uncertainty evidence: when items disagree/);
    const api = text.indexOf('### API knowledge');
    const ctx = text.indexOf('### repository context');
    const sim = text.indexOf('### similar code');
    expect(api).toBeGreaterThan(0);
    expect(ctx).toBeGreaterThan(api);
    expect(sim).toBeGreaterThan(ctx);
    expect(text).toMatch(/\[A1\] inventory\.pricing\.tax_rate — inventory\/pricing\.py:\d+-\d+ — u = 0\.10, r = 0\.82, w = 0\.40, γ = 0\.31/);
    expect(text).toMatch(/\[S2\] inventory\.pricing\.apply_discount .* u = 0\.45/);
    expect(text).toContain(SAMPLE_TASK.signature);
    expect(text).toContain(SAMPLE_TASK.requirement);
    expect(text).not.toContain(SAMPLE_TASK.reference!.split('\n').at(-2)!.trim()); // never the reference
  });

  it('Baseline RAG: the same evidence concatenated without any uncertainty', () => {
    const guided = buildGenerationPrompt(SAMPLE_TASK, trace, { guided: true });
    const base = buildGenerationPrompt(SAMPLE_TASK, trace, { guided: false });
    const text = userOf(base);
    expect(base.kind).toBe('baseline');
    expect(base.evidence).toEqual(guided.evidence);
    for (const e of trace.fused) expect(text).toContain(e.text);
    expect(text).not.toMatch(/uncertain|ū|\bu = |γ/i);
    // fused order, numbered
    expect(text.indexOf(`[1] ${trace.fused[0]!.title}`)).toBeGreaterThan(0);
  });

  it('says when a source is off and tells a method from a function', () => {
    const t = handMadeTrace();
    t.sourceUncertainty.context = null;
    t.fused = t.fused.filter((e) => e.source !== 'context');
    const p = userOf(buildGenerationPrompt({ ...SAMPLE_TASK, qualname: 'Money.multiply', signature: 'def multiply(self, factor):' }, t, { guided: true }));
    expect(p).toContain('ū_X (repository context) = n/a');
    expect(p).toMatch(/n\/a: repository context returned nothing or was switched off/);
    expect(p).toMatch(/Write the complete method `multiply`.*not the whole class Money/);
    expect(userOf(buildGenerationPrompt(SAMPLE_TASK, null, { guided: true }))).toContain('(no evidence was retrieved)');
  });

  it('cuts long evidence and says how much was left out', () => {
    const t = handMadeTrace();
    t.fused[0]!.text = 'x = 1\n'.repeat(1000);
    expect(userOf(buildGenerationPrompt(SAMPLE_TASK, t, { guided: true, maxEvidenceChars: 100 }))).toMatch(/… \(5899 more characters not shown\)/);
  });
});

describe('repair and decomposition prompts', () => {
  it('repair: task, evidence, the failing candidate, static findings and the tail of the failing tests', () => {
    const out = `${'noise\n'.repeat(2000)}FAIL: test_add_tax_standard_rate\nAssertionError: Money(1200) != Money(1000)`;
    const p = buildRepairPrompt(
      {
        task: SAMPLE_TASK,
        trace: handMadeTrace(),
        guided: true,
        candidate: 'def add_tax(amount, tax_class="standard"):\n    return amount\n',
        findings: [{ tool: 'pyflakes', line: 2, message: "local variable 'rate' is assigned to but never used" }],
        testOutput: out,
        round: 2,
      },
      { maxTestOutputChars: 500 },
    );
    const text = userOf(p);
    expect(p.kind).toBe('repair');
    expect(text).toContain('## Candidate that failed (repair round 2)');
    expect(text).toContain('    return amount');
    expect(text).toContain("- [pyflakes] line 2: local variable 'rate' is assigned to but never used");
    expect(text).toContain('AssertionError: Money(1200) != Money(1000)');
    expect(text).toMatch(/earlier characters not shown/);
    expect(text).toContain('ū_A (API knowledge)');
    expect(text).toMatch(/prefer the one with the lower uncertainty u/);
    const plain = userOf(
      buildRepairPrompt({ task: SAMPLE_TASK, trace: handMadeTrace(), guided: false, candidate: 'x', findings: [], testOutput: '', round: 1 }),
    );
    expect(plain).not.toMatch(/uncertain|ū/);
    expect(plain).toContain('(none)');
    expect(plain).toContain('(no test output)');
  });

  it('decomposition: 2–6 ordered steps with weights and per-source sub-queries, schema-constrained', () => {
    const p = buildDecompositionPrompt(SAMPLE_TASK, { min: 2, max: 6 });
    expect(userOf(p)).toMatch(/into 2 to 6 ordered steps/);
    expect(p.schema.schema).toMatchObject({ required: ['steps'], additionalProperties: false });
    const reply =
      '```json\n' +
      JSON.stringify({
        steps: Array.from({ length: 8 }, (_, i) => ({
          text: `step ${i}`,
          weights: { api: -1, context: 0, similar: 2 },
          queries: { api: '', context: 'c', similar: 's' },
        })),
      }) +
      '\n```';
    const { steps, warnings } = parseDecomposition(reply, { min: 2, max: 6 });
    expect(steps).toHaveLength(6);
    expect(warnings[0]).toMatch(/kept the first 6/);
    expect(steps[0]).toEqual({ index: 0, text: 'step 0', weights: { api: 0, context: 0, similar: 1 }, queries: { api: 'step 0', context: 'c', similar: 's' } });
    expect(() =>
      parseDecomposition(
        '{"steps": [{"text": "one", "weights": {"api": 1, "context": 0, "similar": 0}, "queries": {"api": "", "context": "", "similar": ""}}]}',
        { min: 2, max: 6 },
      ),
    ).toThrow(DecompositionError);
    expect(() => parseDecomposition('no json here', { min: 2, max: 6 })).toThrow(/not JSON/);
    expect(() => parseDecomposition('{"steps": [{"text": 1}]}', { min: 2, max: 6 })).toThrow(/schema/);
  });
});

describe('templates', () => {
  it('live in one place, versioned, with a hash that a run stores', () => {
    const rec = promptTemplatesRecord();
    expect(rec.version).toBe(PROMPT_VERSION);
    expect(rec.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(promptTemplatesRecord().hash).toBe(rec.hash);
    expect(Object.keys(rec.templates)).toEqual(Object.keys(PROMPT_TEMPLATES));
    expect(() => render('evidence_item_plain', { tag: '1' })).toThrow(/no value for \{\{title\}\}/);
  });
});
