// How generation reads in a terminal: what an estimate will spend, the estimate line, and a candidate set with its
// generation uncertainty, tokens and cost.

import type { CostEstimate } from '../../../generate/cost.ts';
import type { CandidateSet } from '../../../generate/types.ts';
import { duration, fixed, usd as fmtUsd } from '../../../model/format.ts';

const f3 = (x: number | null | undefined) => fixed(x, 3);
const usd = (x: number | null) => fmtUsd(x, 'unknown (no price)');

/** What an estimate will spend: dollars for a billed service, time for a model on this machine (which nobody bills). */
export function spendText(est: CostEstimate): string {
  return est.secondsExpected !== undefined && est.secondsMax !== undefined
    ? `time ≈ ${duration(est.secondsExpected * 1000)} (at most ${duration(est.secondsMax * 1000)}) on this machine, not billed`
    : `cost ≈ ${usd(est.usdExpected)} (at most ${usd(est.usdMax)})`;
}

export function estimateLine(est: CostEstimate): string {
  const spend = spendText(est);
  return (
    `Estimate before the run: ${est.calls} call(s), ~${est.inputTokens} input tokens, ~${est.outputTokensExpected} output tokens expected ` +
    `(at most ${est.outputTokensMax}); ${spend}. ${est.note}.`
  );
}

export function candidateLines(set: CandidateSet): string[] {
  const u = set.uncertainty;
  const lines = [
    `Backend: ${set.backend.label}${set.backend.replayed ? ' — replayed from the store, no network' : ''}`,
    `Prompt: ${set.prompt.version}, ${set.prompt.kind}`,
    '',
  ];
  for (const c of set.candidates) {
    const meta = [
      `group ${c.group + 1}`,
      c.tokens !== null ? `${c.tokens} tokens` : null,
      c.logprobs ? `token entropy ${f3(c.logprobs.normalised)}` : null,
      c.timing
        ? `${(c.timing.wallMs / 1000).toFixed(2)} s${c.timing.tokensPerSecond !== null ? `, ${c.timing.tokensPerSecond.toFixed(1)} tokens/s` : ''}`
        : null,
      c.refused ? 'REFUSED' : null,
      c.extraction.ok ? null : `NO CODE (${c.extraction.note})`,
      c.origin ?? null,
    ].filter(Boolean);
    lines.push(`Candidate ${c.index + 1} [${meta.join('; ')}]`);
    // one push per line: spreading a long reply's lines into one call would overflow the stack
    for (const l of (c.code || c.reply || '(empty reply)').trimEnd().split('\n')) lines.push(`    ${l}`);
    lines.push('');
  }
  lines.push(
    `Generation uncertainty ${f3(u.aggregate)} (weights entropy ${u.weights.entropy} / consistency ${u.weights.consistency} / variance ${u.weights.variance})`,
    `  token entropy     ${f3(u.entropy.value)}  — ${u.entropy.method}`,
    `  self-consistency  ${f3(u.consistency.value)}  — ${u.consistency.method}; groups ${u.groups.map((g) => `{${g.map((i) => i + 1).join(',')}}`).join(' ')}`,
    `  semantic variance ${f3(u.variance.value)}  — ${u.variance.method}`,
    `Tokens: ${set.usage.inputTokens} in, ${set.usage.outputTokens} out (${set.usage.source}); ${set.usage.calls} call(s), ${set.usage.retries} retries; ${(set.latencyMs / 1000).toFixed(2)} s`,
    `Cost: ${usd(set.cost.usd)} — ${set.cost.note}`,
  );
  for (const w of set.warnings) lines.push(`warning: ${w}`);
  return lines;
}
