// Background slices (util/background.ts): they run while the process has other work, and a process waiting for them
// with nothing else to do still gets them run.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backgroundSettled, inBackground } from '../../main/util/background.ts';
import { REPO_ROOT } from '../validate/helpers.ts';

describe('background slices', () => {
  it('runs each job slice by slice until it says done, and settles after the last', async () => {
    const seen: string[] = [];
    let a = 0;
    let b = 0;
    inBackground(() => (seen.push(`a${a}`), ++a === 3));
    inBackground(() => (seen.push(`b${b}`), ++b === 2));
    inBackground(() => {
      throw new Error('a failing slice ends its job, not the process');
    });
    await backgroundSettled();
    expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a0', 'a1', 'a2']);
    expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b0', 'b1']);
    await backgroundSettled(); // nothing pending: at once
  });

  it('a process with nothing else to do than wait for its slices finishes them and exits', () => {
    // With unref'd immediates the slices waited for an unrelated event that never came: the process hung idle.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-background-'));
    try {
      const script = path.join(dir, 'wait.mts');
      const mod = path.join(REPO_ROOT, 'main', 'util', 'background.ts');
      fs.writeFileSync(
        script,
        // The loader's start-up traffic has ended before the slices begin: nothing else will wake the process.
        `import { backgroundSettled, inBackground } from ${JSON.stringify(mod)};\nawait new Promise((r) => setTimeout(r, 300));\nlet n = 0;\ninBackground(() => ++n === 50);\nawait backgroundSettled();\nconsole.log('slices', n);\n`,
      );
      const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'run-ts.js'), script], { encoding: 'utf8', timeout: 30_000 });
      expect(out.trim()).toBe('slices 50');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pending slices do not keep a process alive that has finished its work', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oc-background-'));
    try {
      const script = path.join(dir, 'leave.mts');
      const mod = path.join(REPO_ROOT, 'main', 'util', 'background.ts');
      fs.writeFileSync(script, `import { inBackground } from ${JSON.stringify(mod)};\ninBackground(() => false);\nconsole.log('done');\n`);
      const out = execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'run-ts.js'), script], { encoding: 'utf8', timeout: 30_000 });
      expect(out.trim()).toBe('done');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
