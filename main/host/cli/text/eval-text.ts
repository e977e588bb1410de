// How the uncertainty evaluation and the price table read in a terminal.

import type { evaluateSampleSets } from '../../../experiment/eval/uncertainty-eval.ts';
import type { PriceTable } from '../../../generate/cost.ts';
import { counts, fixed } from '../../../model/format.ts';

const f3 = (x: number | null | undefined) => fixed(x, 3);

/** The failure-detection AUROC / AUPRC of each signal on a labelled sample file, and with `perTask` a row per task. */
export function uncertaintyEvalLines(file: string, res: Awaited<ReturnType<typeof evaluateSampleSets>>, perTask: boolean): string[] {
  const text = [
    `Samples: ${file}`,
    `Protocol: ${res.protocol}`,
    `Tasks: ${res.tasks} (${res.skipped} without labels skipped), samples per task ${res.samplesPerTask.join('/')}; first sample fails in ${res.positives} (${f3(res.positives / res.tasks)} — the AUPRC of a random score)`,
    `Normalisation of ${Object.values(res.normalisation).reduce((a, b) => a + b, 0)} samples: ${counts(res.normalisation, '')}; encoder ${res.encoder}`,
    'Token entropy needs log-probabilities, which these samples lack: group entropy stands in for it.',
    '',
    `${'signal'.padEnd(64)} AUROC   AUPRC`,
    ...res.signals.map((s) => `${s.signal.padEnd(64)} ${f3(s.auroc)}   ${f3(s.auprc)}`),
    '',
    `ECE of the aggregate read as P(first sample fails), 10 bins: ${f3(res.aggregateEce)} (uncalibrated)`,
    ...res.notes.map((n) => `note: ${n}`),
  ];
  if (perTask) {
    text.push('', 'task                       n  groups  consistency  variance  aggregate  first-fails  pass-rate');
    for (const t of res.perTask) {
      text.push(
        `${t.taskId.padEnd(26)} ${String(t.n).padStart(2)}  ${String(t.groups).padStart(6)}  ${f3(t.consistency).padStart(11)}  ${f3(t.variance).padStart(8)}  ${f3(t.aggregate).padStart(9)}  ${String(t.firstFailed).padStart(11)}  ${f3(t.passRate).padStart(9)}`,
      );
    }
  }
  return text;
}

/** The price table, where it was read from, and what costs nothing unless priced. */
export function priceTableLines(file: string, table: PriceTable, source: string): string[] {
  const text = [`Price table: ${source}${source === 'built-in defaults' ? ` (run opencoder prices --init to write ${file} and edit it)` : ''}`, ''];
  text.push(`${'model'.padEnd(24)} ${'in $/M'.padStart(8)} ${'out $/M'.padStart(8)}  as of       source`);
  for (const [model, p] of Object.entries(table.models)) {
    text.push(
      `${model.padEnd(24)} ${p.inputPerMTok.toFixed(3).padStart(8)} ${p.outputPerMTok.toFixed(3).padStart(8)}  ${p.asOf}  ${p.source ?? ''}${p.note ? ` (${p.note})` : ''}`,
    );
  }
  text.push(
    '',
    'Local servers (a base URL on this machine or a private network), models run in process (llama-cpp) and no model (the retrieval-only baseline) cost 0 unless priced here.',
  );
  return text;
}
