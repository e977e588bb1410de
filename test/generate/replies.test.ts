// Replies without code are named candidates, never a crash or an unscored task: an empty reply, prose without code
// and a refusal each become a candidate without code whose reply kind says which (a failed sample of the model),
// and a model that refuses every sample still yields its candidates instead of failing the task.

import { describe, expect, it } from 'vitest';
import { generateCandidates } from '../../main/generate/generate.ts';
import { makeConfig } from '../../main/model/config.ts';
import type { ChatChoice, ChatResponse, LlmBackend, PromptTask } from '../../main/generate/types.ts';
import { replyKind } from '../../main/pipeline/task-result.ts';

const TASK: PromptTask = { id: 'pkg/f', requirement: 'Return x plus one.', signature: 'def f(x):' };
const PROSE = 'I would need to see more of the code base before I could write this function.';

function backend(choices: Omit<ChatChoice, 'index'>[]): LlmBackend {
  return {
    id: 'scripted:replies',
    provider: 'openai',
    model: 'scripted',
    label: 'scripted replies',
    billing: 'local',
    capabilities: { nativeN: true, logprobs: false, jsonSchema: false, network: false },
    async chat(req): Promise<ChatResponse> {
      return {
        provider: 'openai',
        billing: 'local',
        model: 'scripted',
        choices: choices.slice(0, req.n).map((c, index) => ({ ...c, index })),
        usage: { inputTokens: 10, outputTokens: 5, source: 'reported' },
        calls: 1,
        retries: 0,
        latencyMs: 1,
        warnings: [],
      };
    },
  };
}

describe('replies without code', () => {
  it('names each candidate by what its reply held: code, empty, prose without code, refused', async () => {
    const b = backend([
      { text: '```python\ndef f(x):\n    return x + 1\n```', finishReason: 'stop', logprobs: null },
      { text: '', finishReason: 'stop', logprobs: null },
      { text: PROSE, finishReason: 'stop', logprobs: null },
      { text: 'I can’t help with that.', finishReason: 'refused', logprobs: null, refused: true },
    ]);
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 4 } }) });
    expect(set.candidates.map(replyKind)).toEqual(['code', 'empty', 'no-code', 'refused']);
    expect(set.candidates.map((c) => c.code === '')).toEqual([false, true, true, true]);
    expect(set.warnings).toContain('candidate 2: empty reply');
    expect(set.warnings).toContain('candidate 3: no code in the reply');
  });

  it('a model that refuses every sample yields refused candidates (failed samples), not an error', async () => {
    const b = backend([1, 2, 3].map(() => ({ text: 'I can’t help with that.', finishReason: 'refused', logprobs: null, refused: true })));
    const set = await generateCandidates(TASK, null, { backend: b, config: makeConfig({ generation: { candidates: 3 } }) });
    expect(set.candidates.map(replyKind)).toEqual(['refused', 'refused', 'refused']);
    expect(set.warnings.some((w) => /refused every sample for task pkg\/f/.test(w))).toBe(true);
  });
});
