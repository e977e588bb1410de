// The coordinator's pack cache (queue/bundles.ts): a repository or file packed before is read back while its files are
// the same, and packed again once one changes.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packFile, packFileCached, packRepository, packRepositoryCached } from '../../main/experiment/queue/bundles.ts';
import { makeRepo, tmpDir } from '../helpers/tmp-repo.ts';

describe('pack cache', () => {
  it('reads a repository pack back while nothing changed, and packs again when a file changes', () => {
    const repo = makeRepo({ 'pkg/__init__.py': '', 'pkg/mod.py': 'def f(x):\n    return x\n' });
    const cache = tmpDir('oc-pack-cache-');
    const first = packRepositoryCached(repo, cache);
    expect(first.equals(packRepository(repo))).toBe(true);
    const [name] = fs.readdirSync(cache);
    expect(name).toMatch(/^repo-[0-9a-f]{64}\.gz$/);
    // What the cache holds is what comes back: a sentinel proves the second call read it instead of packing.
    fs.writeFileSync(path.join(cache, name!), 'sentinel');
    expect(packRepositoryCached(repo, cache).toString()).toBe('sentinel');
    fs.writeFileSync(path.join(repo, 'pkg', 'mod.py'), 'def f(x):\n    return x + 1\n');
    const changed = packRepositoryCached(repo, cache);
    expect(changed.equals(packRepository(repo))).toBe(true);
    expect(changed.equals(first)).toBe(false);
    fs.writeFileSync(path.join(repo, 'pkg', 'new.py'), 'X = 1\n');
    expect(packRepositoryCached(repo, cache).equals(packRepository(repo))).toBe(true);
  });

  it('reads a file pack back while the file is the same', () => {
    const dir = tmpDir('oc-pack-file-');
    const file = path.join(dir, 'samples.jsonl');
    fs.writeFileSync(file, '{"task_id": "a"}\n');
    const cache = tmpDir('oc-pack-cache-');
    expect(packFileCached(file, cache).equals(packFile(file))).toBe(true);
    const [name] = fs.readdirSync(cache);
    fs.writeFileSync(path.join(cache, name!), 'sentinel');
    expect(packFileCached(file, cache).toString()).toBe('sentinel');
    fs.appendFileSync(file, '{"task_id": "b"}\n');
    expect(packFileCached(file, cache).equals(packFile(file))).toBe(true);
  });
});
