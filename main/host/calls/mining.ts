// Finding tasks in a repository from the app: repo.mine starts a mining job (host/ops/mine.ts does the work, as for
// `opencoder mine`) with the paths checked, the output defaulting beside the imports, the Settings sandbox, and each
// mining event as the job's progress by phase; repo.mined reads a mined set back for the tables (ops/mined-set.ts).
// A paused or cancelled job keeps every decision made: resuming it, or finding tasks again into the same folder,
// goes on from there.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { JobInfo, MinedSet, ParsedInput } from '../../../contract/index.ts';
import { isMiningOutput, minedFolderOf } from '../../benchmarks/mining/freeze.ts';
import { checkRepositoryRoot } from '../../index/walk.ts';
import type { JobContext } from '../jobs.ts';
import { mineEventText, mineFolder, type MineEvent, type MineRequest } from '../ops/mine.ts';
import { readMinedSet } from '../ops/mined-set.ts';
import { fail, isInside, type Workspace } from '../workspace.ts';
import { defaultMineOut } from './imports.ts';

type MineInput = ParsedInput<'repo.mine'>;

/** A mining job's progress from one of its events: the phase, its count, and the event in words. */
export function mineProgress(job: JobContext, e: MineEvent): void {
  // The card shows the phase and the count beside the message: the text's own `[mine <phase>] i/N` would repeat them.
  const message = mineEventText(e).replace(/^\[mine \w+\] (?:\d+(?:\/\d+)?(?: — |\s|$))?/, '');
  const text = message ? { message } : {};
  if (e.type === 'phase') job.progress({ phase: e.phase, done: 0, total: 0, ...text });
  else job.progress({ phase: e.type === 'decision' ? 'checks' : e.phase, done: e.done, total: e.total, ...text });
}

export function miningCalls(ws: Workspace) {
  /** Mining jobs by the output folder they write, with the repository each mines. */
  const writing = new Map<string, { jobId: string; folder: string }>();
  const runningInto = (out: string) => {
    const w = writing.get(out);
    return w && ws.jobs.get(w.jobId)?.state === 'running' ? w : null;
  };

  /**
   * The default output: benchmarks/mined-<name>, unless another repository of that name was (or is being) mined there;
   * then the name gets a short hash of the folder's path, so neither set replaces the other.
   */
  const defaultOut = (root: string): string => {
    const plain = defaultMineOut(ws.dataDir, root);
    const other = runningInto(plain)?.folder ?? minedFolderOf(plain);
    if (other === null || other === root) return plain;
    return `${plain}-${createHash('sha256').update(root).digest('hex').slice(0, 8)}`;
  };

  /** The output, checked: allowed, neither holding the repository nor inside it, and empty or an earlier mining's folder. */
  const checkOut = (root: string, out: string): string => {
    const c = ws.checkPath('out', out);
    if (isInside(c, root))
      fail('invalid-input', `out ${c} holds the repository ${root}; mining writes its own copy of the repository there, so choose a folder outside it`, [
        { path: 'out', message: 'holds the repository' },
      ]);
    if (isInside(root, c))
      fail(
        'invalid-input',
        `out ${c} lies inside the repository ${root}; the frozen copy there would become part of the repository, answers included, so choose a folder outside it`,
        [{ path: 'out', message: 'inside the repository' }],
      );
    const st = fs.statSync(c, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) fail('invalid-input', `out ${c} is a file; name a folder`, [{ path: 'out', message: 'a file, not a folder' }]);
    if (st && fs.readdirSync(c).length && !isMiningOutput(c))
      fail('invalid-input', `Refusing to write into ${c}: it is not empty and not an earlier mining's folder. Choose a new folder.`, [
        { path: 'out', message: 'not empty, and not an earlier mining' },
      ]);
    return c;
  };

  const start = (root: string, out: string, input: MineInput): JobInfo => {
    const req: MineRequest = {
      folder: root,
      out,
      ...(input.testCommand ? { testCommand: input.testCommand } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.minDocWords !== undefined ? { minDocWords: input.minDocWords } : {}),
      ...(input.seed !== undefined ? { seed: input.seed } : {}),
      validator: { sandbox: { mode: ws.settings.sandbox } },
    };
    const job = ws.jobs.start(
      'mine',
      `Find tasks in ${path.basename(root)}`,
      async (ctx) => {
        ctx.setResult({ mined: { folder: root, out } });
        try {
          await mineFolder(ws, req, (e) => mineProgress(ctx, e), ctx.signal);
        } finally {
          // The leak audit indexed the frozen copy: the repository list has one more.
          ws.emit({ type: 'repos-changed' });
        }
      },
      // A resumed mining checks only the candidates not yet decided: the job keeps the totals it showed before.
      { pausable: true, resumable: true, steadyTotals: true },
    );
    writing.set(out, { jobId: job.id, folder: root });
    return job;
  };

  return {
    /** Starts mining (or answers the mining of the same folder into the same output that is running now). */
    async mine(input: MineInput): Promise<{ jobId: string; out: string }> {
      const root = await checkRepositoryRoot(input.path);
      ws.checkPath('path', root);
      const out = checkOut(root, input.out ?? defaultOut(root));
      const busy = runningInto(out);
      if (busy && busy.folder === root) return { jobId: busy.jobId, out };
      if (busy)
        fail('invalid-input', `Tasks of ${busy.folder} are being found into ${out}; wait for it or choose another output`, [
          { path: 'out', message: 'in use' },
        ]);
      return { jobId: start(root, out, input).id, out };
    },
    mined({ out }: { out: string }): MinedSet {
      return readMinedSet(ws.checkPath('out', out));
    },
  };
}
