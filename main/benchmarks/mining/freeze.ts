// What mining writes: the frozen copy of the repository the tasks run against, the resume state (each decision
// appended as it is made), the manifest (tasks.jsonl, in the importers' format) and MINE.md.

import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { writeManifest } from '../manifest-file.ts';
import { mean, quantile } from '../../stats/metrics.ts';
import type { TaskRecord } from '../../model/task.ts';
import { listRepository } from '../../validate/task-plan.ts';
import { DROP_LABELS, DROP_REASONS, type Decision, type DropReason, type MineSummary } from './types.ts';

export const FROZEN_REPO = 'repos';
export const STATE_DIR = '.mine';
export const MINE_REPORT = 'MINE.md';
const DECISIONS = 'decisions.jsonl';

/** Whether a folder is an earlier mining's output (its resume state or its report is there). */
export function isMiningOutput(dir: string): boolean {
  return fs.existsSync(path.join(dir, STATE_DIR, DECISIONS)) || fs.existsSync(path.join(dir, MINE_REPORT));
}

/** The repository folder an output was mined from, as its resume state records it; null where there is none. */
export function minedFolderOf(out: string): string | null {
  const head = safeJson(readOr(path.join(out, STATE_DIR, DECISIONS)).split('\n', 1)[0] ?? '');
  return head && typeof head.folder === 'string' ? head.folder : null;
}

/**
 * Copies the repository's files (the validator's listing: no VCS folders, caches, virtualenvs, credentials or task
 * manifests) to `dest`, replacing what an earlier run left there. Returns a hash of the copied files (names and
 * bytes) that keys the resume state.
 */
export function freezeRepository(folder: string, dest: string): string {
  const listing = listRepository(folder, folder);
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(dest, { recursive: true });
  const h = createHash('sha256');
  for (const d of listing.dirs) fs.mkdirSync(path.join(dest, d), { recursive: true });
  for (const rel of listing.files) {
    const bytes = fs.readFileSync(path.join(folder, rel));
    fs.writeFileSync(path.join(dest, rel), bytes);
    fs.chmodSync(path.join(dest, rel), (fs.statSync(path.join(folder, rel)).mode & 0o755) | 0o644);
    h.update(rel).update('\0').update(bytes).update('\0');
  }
  for (const [rel, target] of listing.links) {
    try {
      fs.symlinkSync(target, path.join(dest, rel));
      h.update(`${rel}\0->${target}\0`);
    } catch {
      /* a link that cannot be made stays out, as it would for the tests */
    }
  }
  return h.digest('hex');
}

/** The resume state: decisions made so far under one key (repository, options, validator); a new key starts afresh. */
export class MineState {
  readonly decisions = new Map<string, Decision>();
  private readonly file: string;

  constructor(
    readonly dir: string,
    readonly key: string,
    /** The repository folder mined (recorded in the header, for whoever reads the output later). */
    folder: string,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, DECISIONS);
    let lines: string[] = [];
    try {
      lines = fs.readFileSync(this.file, 'utf8').split('\n').filter(Boolean);
    } catch {
      /* no state yet */
    }
    const head = lines.length ? safeJson(lines[0]!) : null;
    if (!head || head.key !== key) {
      fs.writeFileSync(this.file, JSON.stringify({ key, folder }) + '\n');
      return;
    }
    // A line cut short by a crash is the last one: what parses is kept.
    for (const line of lines.slice(1)) {
      const d = safeJson(line) as Decision | null;
      if (d && typeof d.id === 'string') this.decisions.set(d.id, d);
    }
  }

  put(d: Decision): void {
    this.decisions.set(d.id, d);
    fs.appendFileSync(this.file, JSON.stringify(d) + '\n');
  }

  /** A kept value stored beside the decisions under this state's key (the traced suite), or null. */
  getCached<T>(name: string): T | null {
    const got = safeJson(readOr(path.join(this.dir, `${name}.json`)));
    return got && got.key === this.key ? (got.value as T) : null;
  }

  putCached(name: string, value: unknown): void {
    fs.writeFileSync(path.join(this.dir, `${name}.json`), JSON.stringify({ key: this.key, value }));
  }
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function safeJson(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Decisions in the manifest's order: by file, then line, then id. */
export function inOrder(decisions: Iterable<Decision>): Decision[] {
  return [...decisions].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
}

/** Writes tasks.jsonl (kept tasks in order, repository paths relative to it); returns its path. */
export function writeMinedManifest(out: string, decisions: Decision[], frozen: string): string {
  const file = path.join(out, 'tasks.jsonl');
  const tasks = inOrder(decisions)
    .filter((d): d is Extract<Decision, { kept: true }> => d.kept)
    .map((d) => ({ ...(d.record as TaskRecord), repoPath: frozen }));
  writeManifest(file, tasks, { allow: [out] });
  return file;
}

/** MINE.md: what was found, kept and dropped (by reason, each task named), and how to use the set. */
export function mineReport(summary: MineSummary, decisions: Decision[]): string {
  const ordered = inOrder(decisions);
  const kept = ordered.filter((d): d is Extract<Decision, { kept: true }> => d.kept);
  const lines: string[] = [
    `# Tasks mined from ${path.basename(summary.folder)}`,
    '',
    `Mined from \`${summary.folder}\` with \`${summary.testCommand}\`. The tasks run against the frozen copy in \`${FROZEN_REPO}/${path.basename(summary.frozen)}/\`; the manifest is \`tasks.jsonl\`.`,
    '',
    `- Candidates (functions and methods of the repository's own code): ${summary.candidates}`,
    `- Kept: **${summary.tasks}** (${summary.isolated} judged isolated, ${summary.tasks - summary.isolated} in-process)`,
    `- Mutation score of the kept tasks: median ${fmt(summary.mutationScore.median)}, mean ${fmt(summary.mutationScore.mean)}`,
    `- The suite: ${summary.suite.tests} tests, ${summary.suite.passed} passed in the traced run`,
  ];
  if (summary.unchecked) lines.push(`- Not checked: ${summary.unchecked} candidates with tests, over \`--limit\``);
  if (!summary.leakAudit) lines.push('- The leak audit was not run (`--no-leak-audit`): no task was checked for evidence that gives its answer away');
  if (summary.unparsed.length)
    lines.push(`- Files that do not parse (their functions are not candidates): ${summary.unparsed.map((u) => `\`${u.file}\` (${u.error})`).join(', ')}`);
  if (summary.suite.importCalls.length)
    lines.push(`- Called when the tests imported them (import-time calls): ${summary.suite.importCalls.map((c) => `\`${c}\``).join(', ')}`);
  if (summary.suite.loadErrors.length) lines.push(`- Test modules that failed to load: ${summary.suite.loadErrors.length}`);
  lines.push('', '## Dropped, by reason', '', '| reason | count |', '| --- | --- |');
  for (const r of DROP_REASONS) if (summary.dropped[r]) lines.push(`| ${DROP_LABELS[r]} | ${summary.dropped[r]} |`);
  lines.push('', '## Kept tasks', '', '| task | tests | mutation score | isolation | context |', '| --- | --- | --- | --- | --- |');
  for (const d of kept) {
    const src = (d.record.source ?? {}) as {
      checks?: { mutants?: { killed: number; made: number; score: number }; reference?: { isolation: string } };
      context?: { level: string };
    };
    const m = src.checks?.mutants;
    const tests = (d.record.tests as string[] | undefined)?.length ?? 0;
    lines.push(
      `| \`${d.id}\` | ${tests} | ${m ? `${fmt(m.score)} (${m.killed}/${m.made})` : '—'} | ${src.checks?.reference?.isolation ?? '—'} | ${src.context?.level ?? '—'} |`,
    );
  }
  const dropped = ordered.filter((d): d is Extract<Decision, { kept: false }> => !d.kept);
  for (const r of DROP_REASONS) {
    const these = dropped.filter((d) => d.reason === r);
    if (!these.length || r === 'no-docstring' || r === 'trivial') continue;
    lines.push('', `## Dropped: ${DROP_LABELS[r]}`, '');
    for (const d of these) lines.push(`- \`${d.id}\`: ${d.detail.replace(/\s+/g, ' ').slice(0, 300)}`);
  }
  lines.push(
    '',
    '## Use',
    '',
    '```',
    `opencoder run --manifest ${path.join(summary.out)} --method compare`,
    `opencoder ablate --manifest ${path.join(summary.out)}`,
    '```',
    '',
  );
  return lines.join('\n');
}

function fmt(x: number | null): string {
  return x === null ? '—' : x.toFixed(2);
}

/** The summary's counts from the decisions. */
export function countDecisions(decisions: Decision[]): Pick<MineSummary, 'tasks' | 'dropped' | 'isolated' | 'mutationScore'> {
  const dropped: Partial<Record<DropReason, number>> = {};
  const scores: number[] = [];
  let tasks = 0;
  let isolated = 0;
  for (const d of decisions) {
    if (!d.kept) {
      dropped[d.reason] = (dropped[d.reason] ?? 0) + 1;
      continue;
    }
    tasks++;
    const checks = (d.record.source as { checks?: { mutants?: { score: number }; reference?: { isolation: string } } } | undefined)?.checks;
    if (checks?.reference?.isolation === 'isolated') isolated++;
    if (checks?.mutants) scores.push(checks.mutants.score);
  }
  const median = scores.length ? quantile(scores, 0.5) : null;
  const average = scores.length ? Math.round(mean(scores) * 1000) / 1000 : null;
  return { tasks, dropped, isolated, mutationScore: { median, mean: average } };
}
