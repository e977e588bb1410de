// A hand-made retrieval trace for the sample repository's `add_tax` task, built from the real source files,
// so generation can be tested without the retrieval engine.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTask } from '../../main/model/manifest.ts';
import { readManifest } from '../../main/benchmarks/manifest-file.ts';
import type { Task } from '../../main/model/task.ts';
import { definitionOf } from '../../main/generate/extract.ts';
import type { Evidence, RetrievalTrace, Source } from '../../main/model/trace.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SAMPLE_REPO = path.join(ROOT, 'resources', 'sample-repo');
export const SAMPLE_MANIFEST = path.join(SAMPLE_REPO, 'tasks.jsonl');
export const SAMPLE_TASK: Task = findTask(readManifest(SAMPLE_MANIFEST), 'inventory/add_tax');

function source(file: string): string {
  return fs.readFileSync(path.join(SAMPLE_REPO, file), 'utf8');
}

/** A function's text (whole, or only signature and docstring for API entries) with its line span. */
function unit(file: string, name: string, apiOnly = false): { text: string; startLine: number; endLine: number } {
  const src = source(file);
  const def = definitionOf(src, name);
  if (!def) throw new Error(`${name} not in ${file}`);
  const startLine = src.slice(0, src.indexOf(def)).split('\n').length;
  let text = def.replace(/^\s+/gm, (m) => m); // keep indentation as in the file
  const lines = text.split('\n');
  const indent = lines[0]!.length - lines[0]!.trimStart().length;
  text = lines.map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n');
  if (apiOnly) {
    const out: string[] = [];
    let quotes = 0;
    for (const l of text.split('\n')) {
      out.push(l);
      quotes += (l.match(/"""/g) ?? []).length;
      if (out.length > 1 && (quotes === 0 || quotes >= 2)) break;
    }
    text = out.join('\n');
  }
  return { text, startLine, endLine: startLine + def.split('\n').length - 1 };
}

function ev(
  key: string,
  src: Source,
  title: string,
  file: string,
  span: { text: string; startLine: number; endLine: number },
  r: number,
  w: number,
  u: number,
): Evidence {
  const gamma = r * w * Math.max(0, 1 - 0.5 * u);
  const dotted = file.replace(/\.py$/, '').split('/').join('.');
  return {
    key,
    source: src,
    step: 0,
    rank: 0,
    finders: ['vector'],
    title,
    module: dotted,
    qualname: title.startsWith(`${dotted}.`) ? title.slice(dotted.length + 1) : '',
    file,
    startLine: span.startLine,
    endLine: span.endLine,
    text: span.text,
    r,
    w,
    u,
    signals: [{ name: 'margin', value: u, weight: 1, detail: 'hand-made' }],
    gamma,
    kept: true,
    reason: 'kept',
    provenance: [{ source: src, step: 0, gamma }],
  };
}

export function handMadeTrace(): RetrievalTrace {
  const header = source('inventory/pricing.py').split('\n').slice(0, 22).join('\n');
  const fused: Evidence[] = [
    ev('api:1', 'api', 'inventory.pricing.tax_rate', 'inventory/pricing.py', unit('inventory/pricing.py', 'tax_rate', true), 0.82, 0.4, 0.1),
    ev('api:2', 'api', 'inventory.money._round_half_up', 'inventory/money.py', unit('inventory/money.py', '_round_half_up', true), 0.74, 0.4, 0.2),
    ev('api:3', 'api', 'inventory.money.Money.from_cents', 'inventory/money.py', unit('inventory/money.py', 'from_cents', true), 0.7, 0.4, 0.3),
    ev('chunk:1', 'context', 'inventory/pricing.py module header', 'inventory/pricing.py', { text: header, startLine: 1, endLine: 22 }, 0.66, 0.3, 0.25),
    ev('unit:1', 'similar', 'inventory.pricing.tax_included', 'inventory/pricing.py', unit('inventory/pricing.py', 'tax_included'), 0.8, 0.3, 0.15),
    ev('unit:2', 'similar', 'inventory.pricing.apply_discount', 'inventory/pricing.py', unit('inventory/pricing.py', 'apply_discount'), 0.71, 0.3, 0.45),
  ].sort((a, b) => b.gamma - a.gamma);
  fused.forEach((e, i) => (e.rank = i));
  const mean = (s: Source) => {
    const xs = fused.filter((e) => e.source === s).map((e) => e.u);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  return {
    taskId: SAMPLE_TASK.id,
    steps: [
      {
        index: 0,
        text: SAMPLE_TASK.requirement,
        weights: { api: 0.4, context: 0.3, similar: 0.3 },
        queries: { api: 'tax rate', context: 'pricing', similar: 'tax' },
      },
    ],
    decomposition: 'fallback',
    evidence: fused,
    sourceUncertainty: { api: mean('api'), context: mean('context'), similar: mean('similar') },
    fused,
    encoder: { id: 'hand', name: 'hand-made' },
    masked: ['unit:inventory.pricing.add_tax'],
    timingsMs: {},
  };
}
