// Imported samples run as published: byte for byte unless --extract, and never "repaired".

import { describe, expect, it } from 'vitest';
import { generateCandidates, makeRepairer } from '../../main/generate/generate.ts';
import { ImportedBackend } from '../../main/generate/imported-backend.ts';
import { makeConfig } from '../../main/model/config.ts';

// No code fence, and a helper after the target: extraction would cut it down to the target `def`.
const SAMPLE = 'def f(x):\n    return helper(x)  \n\ndef helper(y):\n    return y + 1\n';
const task = { id: 'set/f', requirement: 'Return x + 1.', signature: 'def f(x):' };
const sets = [
  {
    taskId: 'set/f',
    samples: [
      { code: SAMPLE, passed: true },
      { code: '', passed: false },
    ],
    meta: {},
  },
];
const config = makeConfig({ generation: { candidates: 2 } });

describe('imported samples', () => {
  it('are the candidates byte for byte; an empty sample is reported, not repaired into something', async () => {
    const set = await generateCandidates(task, null, { backend: new ImportedBackend(sets, { name: 'set' }), config });
    expect(set.candidates[0]!.code).toBe(SAMPLE);
    expect(set.candidates[0]!.extraction).toMatchObject({ ok: true, note: 'kept byte for byte as published (no extraction)' });
    expect(set.candidates[1]!.extraction).toMatchObject({ ok: false, note: 'empty sample' });
  });

  it('with extract, go through the same extraction as model replies', async () => {
    const set = await generateCandidates(task, null, { backend: new ImportedBackend(sets, { name: 'set', extract: true }), config });
    expect(set.candidates[0]!.code).not.toBe(SAMPLE);
    expect(set.candidates[0]!.code).toContain('def f(x):');
  });

  it('cannot repair: the backend says so, and a repair request is refused rather than answered with a stored sample', async () => {
    const backend = new ImportedBackend(sets, { name: 'set' });
    expect(backend.capabilities.repair).toBe(false);
    const repair = makeRepairer({ backend, config, trace: null });
    await expect(repair({ task, round: 1, code: SAMPLE, staticFindings: [], failingOutput: 'AssertionError' })).rejects.toThrow(
      /Imported samples cannot repair \(task set\/f\)/,
    );
  });
});
