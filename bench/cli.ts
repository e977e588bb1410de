// Start-up of the `opencoder` command beside a bare Node start, measured in the same run: `node -e 0`,
// `opencoder --help` and `opencoder status` on a store holding one small indexed repository (the bundled sample).
// The three take turns in each round, so machine noise hits them alike; medians over the rounds. A warm-up first
// indexes the sample through the command line, which also builds the CLI bundle when it is missing or stale, so
// the rounds time starts from the cached bundle.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findBundle, PACKAGE_ROOT } from '../bin/cli-layout.js';

type Record = (what: string, value: string, baseline: string, ratio: string, target?: string) => void;
type Put = (name: string, value: number) => void;

const ROUNDS = 9;
const BIN = path.join(PACKAGE_ROOT, 'bin', 'opencoder.js');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Wall-clock milliseconds of one `node ARGS` run, which must exit 0. */
function timed(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: PACKAGE_ROOT });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.stdout).trim().split('\n')[0]}`);
  return ms;
}

export async function benchCli(record: Record, put: Put): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-bench-cli-'));
  try {
    const db = path.join(dir, 'cli.db');
    timed([BIN, 'index', path.join(PACKAGE_ROOT, 'resources', 'sample-repo'), '--db', db, '--quiet']);
    const bundle = findBundle();
    const how = bundle.entry ? `from ${path.relative(PACKAGE_ROOT, path.dirname(bundle.entry))}` : `NOT from a bundle: ${bundle.reasons.join('; ')}`;
    const runs = { node: [] as number[], help: [] as number[], status: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      runs.node.push(timed(['-e', '0']));
      runs.help.push(timed([BIN, '--help']));
      runs.status.push(timed([BIN, 'status', '--db', db]));
    }
    const node = median(runs.node);
    const help = median(runs.help);
    const status = median(runs.status);
    put('cli.nodeBaselineMs', node);
    put('cli.helpMs', help);
    put('cli.statusMs', status);
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    record(
      'opencoder --help start-up',
      `${ms(help)} (median of ${ROUNDS}, ${how})`,
      `bare node -e 0 ${ms(node)}`,
      `${(help / node).toFixed(2)}× bare node`,
      '≤ 3× bare node',
    );
    record(
      'opencoder status start-up',
      `${ms(status)} (one indexed repository)`,
      `bare node -e 0 ${ms(node)}`,
      `${(status / node).toFixed(2)}× bare node`,
      '≤ 5× bare node',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
