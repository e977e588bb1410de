// Vector packs: one repository's vectors of one kind, laid out as the search kernels hold them in memory, so that a
// process opens a vector index at once instead of reading every row of the sqlite-vec table and recomputing its
// sign code (4.2 s at 120k units). The ids and sign codes are a row here; the stride-padded float32 rows are a
// file beside the database (`<database>-vectors/`), read straight into the kernels' memory: as SQLite blobs they
// took 0.7 s to read at 120k units, a 4 KiB overflow page at a time. A pack is derived data: it names the
// repository state it was made from (`version`) and is ignored once that changes; a missing or truncated file
// only means the pack is made again.

import fs from 'node:fs';
import path from 'node:path';
import type { ItemKind, Store } from './store.ts';

export interface VectorPackHead {
  version: string;
  n: number;
  dim: number;
  stride: number;
  lanes: number;
  ids: Int32Array;
  codes: Uint32Array;
  /** The rows' file (n × stride float32, row-major, the padding 0). */
  file: string;
}

/** Where a store keeps its packs' rows; null for a database that is not a file. */
function packDir(store: Store): string | null {
  return store.path === ':memory:' || store.path === '' ? null : `${store.path}-vectors`;
}

/** Typed-array view over a blob's bytes (copied when the blob is not aligned for the element size). */
function view<T extends Int32Array | Uint32Array>(make: new (b: ArrayBuffer, o: number, n: number) => T, blob: Buffer): T {
  const n = blob.byteLength / 4;
  if (blob.byteOffset % 4 === 0) return new make(blob.buffer as ArrayBuffer, blob.byteOffset, n);
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new make(copy.buffer, 0, n);
}

const bytesOf = (a: Int32Array | Uint32Array | Float32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The pack's head (ids, codes and where its rows are), or null when there is none (or the database predates packs). */
export function readVectorPackHead(store: Store, repoId: number, encoderId: number, kind: ItemKind): VectorPackHead | null {
  const dir = packDir(store);
  if (!dir) return null;
  const r = store
    .prepared('SELECT version, n, dim, stride, lanes, ids, codes, file FROM vector_packs WHERE repo_id = ? AND encoder_id = ? AND kind = ?')
    .get(repoId, encoderId, kind) as
    { version: string; n: number; dim: number; stride: number; lanes: number; ids: Buffer; codes: Buffer; file: string } | undefined;
  if (!r) return null;
  return { ...r, ids: view(Int32Array, r.ids), codes: view(Uint32Array, r.codes), file: path.join(dir, path.basename(r.file)) };
}

/** An open pack's rows file, read a row at a time as searches need them. */
export interface PackRows {
  /** Reads row `row` (stride float32) into `into` at float offset `at`; false when the file no longer holds it. */
  read(row: number, into: Float32Array, at: number): boolean;
  /** Reads `count` rows from row `row` on, the same way. */
  readRows(row: number, count: number, into: Float32Array, at: number): boolean;
  close(): void;
}

/**
 * Opens the pack's rows file for reading rows on demand; null when it is missing or not of the head's size (the
 * caller then makes the pack again). The file stays open while the index lives: a newer pack renamed over it
 * leaves this one readable. It is closed by close(), or once nothing holds the returned object.
 */
export function openVectorPackRows(head: VectorPackHead): PackRows | null {
  let fd: number;
  try {
    fd = fs.openSync(head.file, 'r');
  } catch {
    return null;
  }
  const rowBytes = head.stride * 4;
  if (fs.fstatSync(fd).size !== head.n * rowBytes) {
    fs.closeSync(fd);
    return null;
  }
  let open = true;
  const registry = new FinalizationRegistry<number>((f) => {
    try {
      fs.closeSync(f);
    } catch {
      // already closed
    }
  });
  const rows: PackRows = {
    read(row, into, at) {
      return rows.readRows(row, 1, into, at);
    },
    readRows(row, count, into, at) {
      if (!open) return false;
      const bytes = count * rowBytes;
      const out = new Uint8Array(into.buffer, into.byteOffset + at * 4, bytes);
      try {
        for (let done = 0; done < bytes;) {
          const got = fs.readSync(fd, out, done, bytes - done, row * rowBytes + done);
          if (got <= 0) return false;
          done += got;
        }
        return true;
      } catch {
        return false;
      }
    },
    close() {
      if (!open) return;
      open = false;
      registry.unregister(rows);
      fs.closeSync(fd);
    },
  };
  // An index dropped from its cache without close() must not hold its descriptor for the process's life.
  registry.register(rows, fd, rows);
  return rows;
}

export interface VectorPack extends Omit<VectorPackHead, 'file'> {
  /** n × stride float32, row-major (the padding is 0). */
  vectors: Float32Array;
}

/**
 * Replaces the repository's pack of this kind: the rows' file first (written aside, then renamed over the old
 * one), then its row, in one transaction. Nothing is written for a database that is not a file.
 */
export function writeVectorPack(store: Store, repoId: number, encoderId: number, kind: ItemKind, pack: VectorPack): void {
  const dir = packDir(store);
  // A database opened only to read gets no file beside it either.
  if (!dir || store.db.readonly) return;
  const name = `r${repoId}-e${encoderId}-${kind}.f32`;
  const file = path.join(dir, name);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, bytesOf(pack.vectors));
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const blob = (a: Int32Array | Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  store.write(`vector pack ${kind} of repository ${repoId}`, () => {
    store.prepared('DELETE FROM vector_packs WHERE repo_id = ? AND encoder_id = ? AND kind = ?').run(repoId, encoderId, kind);
    store
      .prepared(
        'INSERT INTO vector_packs(repo_id, encoder_id, kind, version, n, dim, stride, lanes, ids, codes, file) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(repoId, encoderId, kind, pack.version, pack.n, pack.dim, pack.stride, pack.lanes, blob(pack.ids), blob(pack.codes), name);
  });
}

/** The state the repository's pack of this kind was made from, without reading it; null when there is none. */
export function vectorPackVersion(store: Store, repoId: number, encoderId: number, kind: ItemKind): string | null {
  if (!packDir(store)) return null;
  const r = store.prepared('SELECT version FROM vector_packs WHERE repo_id = ? AND encoder_id = ? AND kind = ?').get(repoId, encoderId, kind) as
    { version: string } | undefined;
  return r?.version ?? null;
}

/** Marks a pack of state `from` as of state `to` (an index run that changed no vector); false when it was not of `from`. */
export function restampVectorPack(store: Store, repoId: number, encoderId: number, kind: ItemKind, from: string, to: string): boolean {
  if (!packDir(store)) return false;
  return store.write(`vector pack ${kind} of repository ${repoId}`, () => {
    const r = store
      .prepared('UPDATE vector_packs SET version = ? WHERE repo_id = ? AND encoder_id = ? AND kind = ? AND version = ?')
      .run(to, repoId, encoderId, kind, from);
    return r.changes > 0;
  });
}
