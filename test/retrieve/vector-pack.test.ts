// Vector packs (issue 33): an index run leaves each kind's vectors as the kernels hold them, and a process opens its
// vector indexes from the pack, with the same vectors and the same answers as from the vector table; a stale,
// missing or truncated pack is made again, and an index run that changed nothing keeps its packs.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../main/store/store.ts';
import { openConfiguredEncoder } from '../../main/embed/select.ts';
import type { Encoder } from '../../main/model/encoder.ts';
import { indexRepo } from '../../main/host/ops/indexing.ts';
import { sampleRepoPath } from '../../main/host/paths.ts';
import { packVersion, VectorIndex, VectorIndexCache } from '../../main/retrieve/vector-index.ts';
import { readVectorPackHead, restampVectorPack, vectorPackVersion } from '../../main/store/vector-packs.ts';
import type { ItemKind } from '../../main/store/store.ts';
import { tmpDir } from '../helpers/tmp-repo.ts';
import { testItems } from '../../main/retrieve/index-lookups.ts';
import { readDerivedIds } from '../../main/store/derived-ids.ts';

const KINDS: ItemKind[] = ['unit', 'chunk', 'api'];

describe('vector packs', () => {
  const dir = tmpDir('oc-vector-pack-');
  const repo = path.join(dir, 'repo');
  let store: Store;
  let encoder: Encoder;
  let repoId: number;
  let encId: number;

  beforeAll(async () => {
    fs.cpSync(sampleRepoPath(), repo, { recursive: true });
    store = Store.open(path.join(dir, 'w.db'));
    encoder = (await openConfiguredEncoder({ prefer: 'default', modelsDir: path.join(dir, 'none') })).encoder;
    repoId = (await indexRepo({ store, encoder }, repo)).repoId;
    encId = store.registerEncoder(encoder).id;
  });
  afterAll(async () => {
    await encoder.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The index of a kind read from the vector table, row by row (no pack involved). */
  const fromTable = (kind: ItemKind) => VectorIndex.load(store, repoId, encId, kind, encoder.dim);
  const fromPack = (kind: ItemKind) => VectorIndex.load(store, repoId, encId, kind, encoder.dim, packVersion(store, repoId));

  it('an index run leaves a pack of the current state for each kind, its rows in a file beside the database', () => {
    for (const kind of KINDS) {
      expect(vectorPackVersion(store, repoId, encId, kind)).toBe(packVersion(store, repoId));
      const head = readVectorPackHead(store, repoId, encId, kind)!;
      expect(head.n).toBeGreaterThan(0);
      expect(path.dirname(head.file)).toBe(`${store.path}-vectors`);
      expect(fs.statSync(head.file).size).toBe(head.n * head.stride * 4);
    }
  });

  it('a pack gives the same items, vectors and answers as the vector table', () => {
    for (const kind of KINDS) {
      const a = fromTable(kind);
      const b = fromPack(kind);
      expect([...b.ids]).toEqual([...a.ids]);
      for (const id of a.ids) expect(b.vector(id)).toEqual(a.vector(id));
      for (const id of [...a.ids].slice(0, 5)) {
        const q = a.vector(id)!.slice();
        expect(b.search(q, 8)).toEqual(a.search(q, 8));
        expect(b.exactSearch(q, 8)).toEqual(a.exactSearch(q, 8));
      }
    }
  });

  it('a truncated or missing rows file, or a pack of another state, is made again', () => {
    const head = readVectorPackHead(store, repoId, encId, 'unit')!;
    const want = fromTable('unit');
    fs.truncateSync(head.file, 100);
    const rebuilt = fromPack('unit');
    for (const id of want.ids) expect(rebuilt.vector(id)).toEqual(want.vector(id));
    expect(fs.statSync(head.file).size).toBe(head.n * head.stride * 4);

    fs.rmSync(head.file);
    expect(fromPack('unit').vector(want.ids[0]!)).toEqual(want.vector(want.ids[0]!));
    expect(fs.existsSync(head.file)).toBe(true);

    // A pack stamped with another state is not read: the index comes from the table, and the pack is rewritten.
    expect(restampVectorPack(store, repoId, encId, 'chunk', packVersion(store, repoId), 'an older state')).toBe(true);
    const chunks = readVectorPackHead(store, repoId, encId, 'chunk')!;
    fs.writeFileSync(chunks.file, Buffer.alloc(chunks.n * chunks.stride * 4)); // zeros: wrong, were they read
    const c = new VectorIndexCache().get(store, repoId, encId, 'chunk', encoder.dim);
    const t = fromTable('chunk');
    for (const id of t.ids) expect(c.vector(id)).toEqual(t.vector(id));
    expect(vectorPackVersion(store, repoId, encId, 'chunk')).toBe(packVersion(store, repoId));
  });

  it('rows are read as searches need them; a file cut short under an open index gives way to the vector table', () => {
    const want = fromTable('unit');
    const lazy = fromPack('unit');
    const head = readVectorPackHead(store, repoId, encId, 'unit')!;
    fs.truncateSync(head.file, 0);
    for (const id of want.ids) expect(lazy.vector(id)).toEqual(want.vector(id));
    fs.rmSync(head.file);
    fromPack('unit'); // made again for the tests below
  });

  it('an index run that changed nothing re-stamps the packs; a small change leaves them for the first load to remake', async () => {
    const head = readVectorPackHead(store, repoId, encId, 'unit')!;
    const before = fs.statSync(head.file).mtimeMs;
    const v0 = packVersion(store, repoId);
    await new Promise((r) => setTimeout(r, 20));
    await indexRepo({ store, encoder }, repo);
    expect(packVersion(store, repoId)).not.toBe(v0);
    for (const kind of KINDS) expect(vectorPackVersion(store, repoId, encId, kind)).toBe(packVersion(store, repoId));
    expect(fs.statSync(head.file).mtimeMs).toBe(before);

    const file = path.join(repo, 'inventory', 'extra_pack_test.py');
    fs.writeFileSync(file, 'def shout(s):\n    """Upper-case s."""\n    return s.upper()\n');
    const stats = await indexRepo({ store, encoder }, repo);
    // One file of many (under a tenth of those seen): remaking every pack would cost more than the index run.
    expect(stats.files.added + stats.files.changed).toBeLessThan(0.1 * stats.files.seen);
    const stale = readVectorPackHead(store, repoId, encId, 'unit')!;
    expect(stale.n).toBe(head.n);
    expect(stale.version).not.toBe(packVersion(store, repoId));
    const idx = fromPack('unit'); // the first load over the new state remakes it
    const after = readVectorPackHead(store, repoId, encId, 'unit')!;
    expect(after.n).toBeGreaterThan(head.n);
    expect(after.version).toBe(packVersion(store, repoId));
    const t = fromTable('unit');
    expect([...idx.ids]).toEqual([...t.ids]);
  });

  it('a store opened only to read uses stale derived data as it is: made in memory, nothing written', async () => {
    fs.writeFileSync(path.join(repo, 'inventory', 'extra_pack_test2.py'), 'def whisper(s):\n    """Lower-case s."""\n    return s.lower()\n');
    await indexRepo({ store, encoder }, repo); // a small change: packs and test-file items left stale
    const now = packVersion(store, repoId);
    const files = fs.readdirSync(`${store.path}-vectors`).map((f) => `${f} ${fs.statSync(path.join(`${store.path}-vectors`, f)).mtimeMs}`);
    const ro = Store.open(store.path, { readonly: true });
    try {
      for (const kind of KINDS) {
        expect(vectorPackVersion(ro, repoId, encId, kind)).not.toBe(now);
        const idx = VectorIndex.load(ro, repoId, encId, kind, encoder.dim, now);
        expect([...idx.ids]).toEqual([...fromTable(kind).ids]);
        const tests = testItems(ro, repoId, kind);
        if (kind === 'unit') expect(tests.size).toBeGreaterThan(0); // the sample repository's tests/
        expect(readDerivedIds(ro, repoId, `tests|${kind}`, now)).toBeNull();
        expect(vectorPackVersion(ro, repoId, encId, kind)).not.toBe(now);
      }
      expect(fs.readdirSync(`${store.path}-vectors`).map((f) => `${f} ${fs.statSync(path.join(`${store.path}-vectors`, f)).mtimeMs}`)).toEqual(files);
    } finally {
      ro.close();
    }
  });
});

describe('an index opened from a pack, above the exact-scan size', () => {
  const dir = tmpDir('oc-vector-pack-big-');
  let store: Store;
  afterAll(() => {
    store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers every search, exclusion and view as the index it was saved from', () => {
    store = Store.open(path.join(dir, 'w.db'));
    const repoId = store.upsertRepository(dir).id;
    const n = 6000;
    const dim = 48;
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
    const v = new Float32Array(n * dim);
    for (let i = 0; i < n; i++) {
      let norm = 0;
      for (let j = 0; j < dim; j++) norm += (v[i * dim + j] = rnd() + (i % 40 === j % 40 ? 1 : 0)) ** 2;
      for (let j = 0; j < dim; j++) v[i * dim + j]! /= Math.sqrt(norm);
    }
    const original = new VectorIndex(
      dim,
      Int32Array.from({ length: n }, (_, i) => 3 * i + 1),
      v,
    );
    original.savePack(store, repoId, 9, 'unit', 'state-1');
    const opened = VectorIndex.load(store, repoId, 9, 'unit', dim, 'state-1');
    const queries = [5, 77, 1234, 4999].map((i) => original.vector(3 * i + 1)!.slice());
    for (const q of queries) expect(opened.search(q, 8)).toEqual(original.search(q, 8));
    expect(opened.searchMany(queries, 5)).toEqual(original.searchMany(queries, 5));
    // A small exclusion (a view sharing the rows) and a large one (a copy of the rest, its rows read from the file).
    const few = new Set([1, 4, 7, 3 * 77 + 1]);
    const many = new Set(Array.from({ length: 3000 }, (_, i) => 6 * i + 1));
    for (const set of [few, many]) {
      const a = original.without(set);
      const b = opened.without(set);
      for (const q of queries) expect(b.search(q, 8)).toEqual(a.search(q, 8));
      expect(b.exactSearch(queries[0]!, 8)).toEqual(a.exactSearch(queries[0]!, 8));
    }
    expect(opened.cosine(1, queries[0]!)).toBeCloseTo(original.cosine(1, queries[0]!)!, 6);
    expect(opened.exactSearch(queries[2]!, 10)).toEqual(original.exactSearch(queries[2]!, 10));
    // Another state's pack is not read.
    expect(() => VectorIndex.load(store, repoId, 9, 'unit', dim, 'state-2')).toThrow(/no such table/);
  });
});
