// CoderEval's ChatGPT samples (230 tasks × 10, official is_pass labels) as an imported backend, and the
// failure-detection AUROC of each generation-uncertainty signal computed with the project's metrics.
// Reads ../shared/bench (or OPENCODER_BENCH_DIR); skips, saying so, when the data is not there.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import { evaluateSampleSets } from '../../main/experiment/eval/uncertainty-eval.ts';
import { ImportedBackend, loadSampleSets } from '../../main/generate/imported-backend.ts';
import { generateCandidates } from '../../main/generate/generate.ts';
import { LlmError } from '../../main/generate/errors.ts';
import { main } from '../../main/host/cli/main.ts';
import { DEFAULT_CONFIG, makeConfig } from '../../main/model/config.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { ROOT } from './trace-fixture.ts';
import { NO_BENCH } from '../helpers/system.ts';

const BENCH = process.env.OPENCODER_BENCH_DIR ? path.resolve(process.env.OPENCODER_BENCH_DIR) : path.resolve(ROOT, '..', 'shared', 'bench');
const FILE = path.join(BENCH, 'codereval', 'experimental-results', 'GenerateResultPython', 'ChatGPT', 'Raw_Input.jsonl_out.jsonl');
const present = fs.existsSync(FILE);
if (!present) console.warn(`skipping CoderEval tests: ${FILE} not found (set OPENCODER_BENCH_DIR to the folder holding codereval/)`);

describe.skipIf(!present)(`CoderEval ChatGPT samples${!present ? NO_BENCH : ''}`, () => {
  let encoder: Encoder;
  beforeAll(async () => {
    encoder = (await openConfiguredEncoder({ prefer: 'default', modelsDir: path.join(tmpDir('oc-ce-'), 'none') })).encoder;
  });
  afterAll(async () => {
    await encoder.dispose();
  });

  it('serves the samples as a backend, task by task', async () => {
    const backend = ImportedBackend.fromFile(FILE, 'codereval-chatgpt');
    const task = {
      id: 'codereval/62e60f43d76274f8a4026e28',
      requirement: 'Hydrator for `Time` and `LocalTime` values.',
      signature: 'def hydrate_time(nanoseconds, tz=None):',
    };
    const set = await generateCandidates(task, null, { backend, encoder, config: makeConfig({ generation: { candidates: 10 } }) });
    expect(set.candidates).toHaveLength(10);
    expect(set.backend.label).toMatch(/generated elsewhere; no model called/);
    expect(set.candidates[0]!.origin).toMatch(/official label: fail/);
    // Exactly as published (no trailing newline added, nothing cut).
    expect(set.candidates[0]!.code).toBe('def hydrate_time(nanoseconds, tz=None):\n    return Time(nanoseconds, tz)');
    // nine of the ten samples are the same one-liner
    expect(set.uncertainty.consistency.value).toBeCloseTo(0.1, 12);
    expect(set.usage.source).toBe('none');
    await expect(generateCandidates(task, null, { backend, config: makeConfig({ generation: { candidates: 11 } }) })).rejects.toBeInstanceOf(LlmError);
  });

  it('computes the failure-detection AUROC of every signal (first sample fails vs. uncertainty of the set)', async () => {
    const sets = loadSampleSets(FILE);
    expect(sets).toHaveLength(230);
    const res = await evaluateSampleSets(sets, { encoder, weights: DEFAULT_CONFIG.generation.uncertaintyWeights });
    expect(res.tasks).toBe(230);
    expect(res.positives).toBeGreaterThan(100);
    expect(res.normalisation.ast).toBeGreaterThan(2200);
    const by = Object.fromEntries(res.signals.map((s) => [s.signal.split(' (')[0], s]));
    for (const s of res.signals) {
      expect(s.auroc, s.signal).toBeGreaterThan(0);
      expect(s.auroc, s.signal).toBeLessThan(1);
    }
    // disagreement among the samples flags failures better than chance
    expect(by['self-consistency']!.auroc).toBeGreaterThan(0.55);
    expect(by['aggregate 0.4/0.4/0.2']!.auroc).toBeGreaterThan(0.55);
  });

  it('prints the figures from the command line', async () => {
    const out: string[] = [];
    const code = await main(['uncertainty-eval', '--samples', FILE, '--json'], { out: (l) => out.push(l), err: () => {} });
    expect(code).toBe(0);
    const doc = JSON.parse(out.at(-1)!);
    expect(doc.tasks).toBe(230);
    expect(doc.signals.map((s: { signal: string }) => s.signal)).toEqual([
      'self-consistency (1 − largest group / n)',
      'semantic variance (1 − mean pairwise cosine)',
      'group entropy (stand-in for token entropy)',
      'aggregate 0.4/0.4/0.2 (group entropy for entropy)',
      'aggregate without entropy (renormalised)',
    ]);
  });
});
