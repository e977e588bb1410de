// A mined set read back from its folder, for the app's tables (repo.mined): the kept tasks from tasks.jsonl (their
// checks in `source`), the dropped candidates from the resume state (.mine/decisions.jsonl: a header line, then one
// Decision a line, a later line for an id replacing an earlier one). A run that stopped, or is still running, has no
// current manifest yet: its kept tasks then come from the decisions too, and the set says it is not complete.

import fs from 'node:fs';
import path from 'node:path';
import type { MinedDrop, MinedSet, MinedTask } from '../../../contract/index.ts';
import { countDecisions, inOrder, MINE_REPORT, STATE_DIR } from '../../benchmarks/mining/freeze.ts';
import { DROP_LABELS, DROP_REASONS, type Decision, type DropReason } from '../../benchmarks/mining/types.ts';
import { OpenCoderError } from '../../model/errors.ts';

export const MINED_MANIFEST = 'tasks.jsonl';

type Kept = Extract<Decision, { kept: true }>;
type Dropped = Extract<Decision, { kept: false }>;

/** What a kept record's provenance holds of its checks (task-record.ts and mine.ts write it). */
interface MinedSource {
  line?: number;
  context?: { level?: string };
  checks?: { mutants?: { killed: number; made: number; score: number }; reference?: { isolation?: string } };
}

const mtimeOf = (file: string): number | null => fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? null;

/** The decisions of the resume state, the last line for an id winning; a line cut short by a crash is skipped. */
export function readDecisions(file: string): Map<string, Decision> {
  const out = new Map<string, Decision>();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return out;
  }
  const lines = text.split('\n').filter(Boolean);
  for (const line of lines.slice(1)) {
    try {
      const d = JSON.parse(line) as Decision;
      if (d && typeof d.id === 'string' && typeof d.kept === 'boolean') out.set(d.id, d);
    } catch {
      /* the last line of a stopped run may be cut short */
    }
  }
  return out;
}

/** The manifest's records as kept decisions; a line that is not a task record is an error naming the file and line. */
function readManifestRecords(file: string): Kept[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out: Kept[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      throw new OpenCoderError('invalid-input', `${file}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    if (!rec || typeof rec.id !== 'string' || typeof rec.file !== 'string' || typeof rec.qualname !== 'string')
      throw new OpenCoderError('invalid-input', `${file}:${i + 1}: not a task record (it needs id, file and qualname)`);
    const line0 = (rec.source as MinedSource | undefined)?.line;
    out.push({ id: rec.id, file: rec.file, qualname: rec.qualname, line: typeof line0 === 'number' ? line0 : 0, kept: true, record: rec });
  });
  return out;
}

function keptRow(d: Kept): MinedTask {
  const src = (d.record.source ?? {}) as MinedSource;
  const m = src.checks?.mutants;
  const iso = src.checks?.reference?.isolation;
  return {
    id: d.id,
    file: d.file,
    qualname: d.qualname,
    line: d.line || null,
    tests: Array.isArray(d.record.tests) ? d.record.tests.length : 0,
    mutants: m ? { killed: m.killed, made: m.made, score: m.score } : null,
    isolation: iso === 'isolated' || iso === 'in-process' ? iso : null,
    context: src.context?.level ?? null,
  };
}

const labelOf = (reason: string): string => DROP_LABELS[reason as DropReason] ?? reason;

/**
 * Drops are listed the later checks' first (sorted by this, highest first): those that ran something say most about
 * the suite, where a missing docstring says little. A reason this version does not know comes last.
 */
const dropRank = (reason: string): number => DROP_REASONS.indexOf(reason as DropReason);

function dropRow(d: Dropped): MinedDrop {
  return { id: d.id, file: d.file, qualname: d.qualname, line: d.line || null, reason: d.reason, label: labelOf(d.reason), detail: d.detail };
}

/**
 * Reads the mined set in `out`. The manifest is current when it was written after the last decision (a run writes
 * its decisions, then tasks.jsonl, then MINE.md); otherwise the decisions so far stand for it.
 */
export function readMinedSet(out: string): MinedSet {
  const manifestFile = path.join(out, MINED_MANIFEST);
  const reportFile = path.join(out, MINE_REPORT);
  const decisionsFile = path.join(out, STATE_DIR, 'decisions.jsonl');
  const manifestAt = mtimeOf(manifestFile);
  const decisionsAt = mtimeOf(decisionsFile);
  if (manifestAt === null && decisionsAt === null)
    throw new OpenCoderError('not-found', `${out} holds no mined set: neither ${MINED_MANIFEST} nor ${path.join(STATE_DIR, 'decisions.jsonl')} is there`);
  const decisions = readDecisions(decisionsFile);
  const complete = manifestAt !== null && (decisionsAt === null || decisionsAt <= manifestAt);
  const kept = complete ? readManifestRecords(manifestFile) : (inOrder([...decisions.values()].filter((d) => d.kept)) as Kept[]);
  const keptIds = new Set(kept.map((d) => d.id));
  const dropped = (inOrder([...decisions.values()].filter((d) => !d.kept && !keptIds.has(d.id))) as Dropped[]).sort(
    (a, b) => dropRank(b.reason) - dropRank(a.reason),
  );
  const counts = countDecisions([...kept, ...dropped]);
  const droppedBy = Object.entries(counts.dropped)
    .map(([reason, count]) => ({ reason, label: labelOf(reason), count: count ?? 0 }))
    .sort((a, b) => dropRank(b.reason) - dropRank(a.reason));
  return {
    out,
    manifest: manifestAt === null ? null : manifestFile,
    report: mtimeOf(reportFile) === null ? null : reportFile,
    complete,
    candidates: kept.length + dropped.length,
    kept: kept.map(keptRow),
    dropped: dropped.map(dropRow),
    droppedBy,
    isolated: counts.isolated,
    mutationScore: counts.mutationScore,
  };
}
