// Retrieval for one task: decompose → per source and step, candidates from vectors (+ BM25 and, for
// repository context, the target's own module, imports and class) → relevance r = cosine → top k →
// uncertainty → API refinement → fusion. Returns (and stores) the whole trace.

import type { Encoder } from '../embed/encoder.ts';
import { configHash, DEFAULT_CONFIG, SOURCES, type PipelineConfig, type Source } from '../pipeline/config.ts';
import type { ItemKind, Store } from '../store/store.ts';
import { ftsQuery, queryTerms } from '../store/lexical.ts';
import { isTestFile } from '../index/test-files.ts';
import { decompose, signatureWords, type Decomposer } from './decompose.ts';
import { fuse } from './fuse.ts';
import { fetchItems, type Item } from './items.ts';
import { refineApi } from './refine.ts';
import { resolveTarget, type RetrievalTask, type TargetInfo } from './target.ts';
import { localityOf, resolveImport, scoreList, type ScoredItem, type TargetContext } from './uncertainty.ts';
import { VectorIndexCache } from './vector-index.ts';
import type { Evidence, Finder, RetrievalTrace } from './types.ts';

export type { RetrievalTask };

export const SOURCE_KIND: Record<Source, ItemKind> = { api: 'api', context: 'chunk', similar: 'unit' };
const FTS: Record<ItemKind, string> = { api: 'fts_api', chunk: 'fts_chunks', unit: 'fts_units' };
const TABLE: Record<ItemKind, string> = { api: 'api_entries', chunk: 'chunks', unit: 'units' };

export class RetrievalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetrievalError';
  }
}

export interface RetrieveOptions {
  store: Store;
  encoder: Encoder;
  repoId: number;
  task: RetrievalTask;
  config?: PipelineConfig;
  decomposer?: Decomposer;
  /** Loaded vector indexes, shared across tasks of a run. */
  cache?: VectorIndexCache;
  /** Store the trace (default true). */
  persist?: boolean;
  /** Vector search: the sign-code prefilter with exact rescoring (default), or an exact scan (benchmark baseline). */
  search?: 'approx' | 'exact';
}

const defaultCache = new VectorIndexCache();

/** Items a search must skip. */
interface Excluded {
  has(id: number): boolean;
}

interface Candidate {
  id: number;
  r: number;
  vector: Float32Array | null;
  finders: Finder[];
}

const testItemCache = new Map<string, Set<number>>();

/** Ids of items of `kind` that live in test files (see index/test-files.ts), cached per index state. */
function testItems(store: Store, repoId: number, kind: ItemKind): Set<number> {
  const repo = store.getRepository(repoId);
  const key = `${store.path}|${repoId}|${kind}|${repo?.last_indexed_at ?? ''}`;
  let ids = testItemCache.get(key);
  if (!ids) {
    ids = new Set();
    const rows = store.db
      .prepare(`SELECT t.id, f.path FROM ${TABLE[kind]} t JOIN files f ON f.id = t.file_id WHERE t.repo_id = ?`)
      .all(repoId) as { id: number; path: string }[];
    for (const r of rows) if (isTestFile(r.path)) ids.add(r.id);
    testItemCache.set(key, ids);
  }
  return ids;
}

const docCounts = new Map<string, number>();

function docCount(store: Store, repoId: number, kind: ItemKind): number {
  const key = `${store.path}|${kind}|${store.getRepository(repoId)?.last_indexed_at ?? ''}`;
  let n = docCounts.get(key);
  if (n === undefined) {
    n = (store.db.prepare(`SELECT count(*) AS n FROM ${TABLE[kind]}`).get() as { n: number }).n;
    docCounts.set(key, n);
  }
  return n;
}

/**
 * BM25 recall over the FTS5 index with the query's most informative terms: those in at most 1 % of
 * the documents (rarest first, at most 4). Common words would make every document a match and BM25
 * would have to score them all; they add nothing the embedding does not already capture.
 */
function lexicalHits(store: Store, kind: ItemKind, repoId: number, query: string, limit: number, masked: Excluded): number[] {
  if (limit <= 0) return [];
  const terms = queryTerms(query);
  if (!terms.length) return [];
  const docs = docCount(store, repoId, kind);
  const df = store.db
    .prepare(`SELECT term, doc FROM ${FTS[kind]}_vocab WHERE term IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(terms)) as { term: string; doc: number }[];
  const informative = df
    .filter((d) => d.doc <= Math.max(20, docs * 0.01))
    .sort((a, b) => a.doc - b.doc)
    .slice(0, 4)
    .map((d) => d.term);
  const q = ftsQuery(informative);
  if (!q) return [];
  const rows = store.db
    .prepare(
      `SELECT f.rowid AS id FROM ${FTS[kind]} f JOIN ${TABLE[kind]} t ON t.id = f.rowid
       WHERE ${FTS[kind]} MATCH ? AND t.repo_id = ? ${kind === 'unit' ? "AND t.kind IN ('function', 'method')" : ''}
       ORDER BY bm25(${FTS[kind]}) LIMIT ?`,
    )
    // Over-fetch so that masked and test-file hits can be dropped afterwards.
    .all(q, repoId, limit * 4 + 16) as { id: number }[];
  return rows.map((r) => r.id).filter((id) => !masked.has(id)).slice(0, limit);
}

function structuralChunks(store: Store, repoId: number, target: TargetInfo, masked: Excluded): number[] {
  if (!target.file) return [];
  const ids: number[] = [];
  const own = store.db
    .prepare(
      `SELECT c.id, c.kind, c.owner FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND f.path = ? AND (c.kind = 'module_header' OR c.kind = 'class_skeleton')`,
    )
    .all(repoId, target.file) as { id: number; kind: string; owner: string }[];
  for (const c of own) {
    if (c.kind === 'module_header' || (target.className && c.owner === target.className)) ids.push(c.id);
  }
  return ids.filter((id) => !masked.has(id));
}

function importedHeaders(store: Store, repoId: number, modules: string[], masked: Excluded): number[] {
  if (!modules.length) return [];
  return (
    store.db
      .prepare(
        `SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.repo_id = ? AND c.kind = 'module_header' AND f.module IN (SELECT value FROM json_each(?))`,
      )
      .all(repoId, JSON.stringify(modules)) as { id: number }[]
  )
    .map((r) => r.id)
    .filter((id) => !masked.has(id));
}

/** Retrieves, scores and fuses the evidence for one task. */
export async function retrieveForTask(opts: RetrieveOptions): Promise<RetrievalTrace> {
  const t0 = performance.now();
  const { store, encoder, repoId, task } = opts;
  const config = opts.config ?? DEFAULT_CONFIG;
  const cache = opts.cache ?? defaultCache;
  const repo = store.getRepository(repoId);
  if (!repo) throw new RetrievalError(`No repository with id ${repoId} in ${store.path}; index it first.`);
  const enc = store.registerEncoder(encoder);
  if (repo.encoder_id !== enc.id) {
    const used = repo.encoder_id != null ? store.getEncoder(repo.encoder_id)?.name : null;
    throw new RetrievalError(
      `${repo.root} was indexed with ${used ?? 'no encoder'}, not ${encoder.name}; run opencoder index on it with this encoder first.`,
    );
  }
  const timings: Record<string, number> = {};
  let t = performance.now();
  const target = resolveTarget(store, repoId, task);
  const sig = signatureWords(task.signature);
  const targetCtx: TargetContext = { module: target.module, imports: target.imports, arity: sig.params.length };
  // Excluded per kind: the masked items, and test-file items (a cached set: checked, not copied).
  const excluded = (masked: Set<number>, kind: ItemKind): Excluded => {
    const tests = config.retrieval.excludeTests ? testItems(store, repoId, kind) : null;
    return { has: (id: number) => masked.has(id) || (tests?.has(id) ?? false) };
  };
  const maskedByKind: Record<ItemKind, Excluded> = {
    unit: excluded(target.masked.units, 'unit'),
    chunk: excluded(target.masked.chunks, 'chunk'),
    api: excluded(target.masked.api, 'api'),
  };
  timings.target = performance.now() - t;

  t = performance.now();
  const dec = await decompose(
    { requirement: task.requirement, signature: task.signature, module: target.module ?? undefined, className: target.className },
    config,
    opts.decomposer,
  );
  timings.decompose = performance.now() - t;

  const sources = SOURCES.filter((s) => config.retrieval.sources[s]);
  t = performance.now();
  const queries: { step: number; source: Source; text: string }[] = [];
  for (const step of dec.steps) for (const s of sources) queries.push({ step: step.index, source: s, text: step.queries[s] });
  const qvecs = queries.length ? await encoder.embed(queries.map((q) => q.text)) : [];
  timings.embed = performance.now() - t;

  t = performance.now();
  const evidence: Evidence[] = [];
  const k = config.retrieval.perSourceTopK;
  const importedModules = target.module ? target.imports.map((i) => i.split('#')[0]!).filter(Boolean) : [];
  const structural = structuralChunks(store, repoId, target, maskedByKind.chunk);
  const imported = target.module
    ? importedHeaders(
        store,
        repoId,
        // `from .utils import slugify` names pkg.utils.slugify: the module is the name or its parent.
        importedModules.flatMap((m) => {
          const abs = resolveImport(m, target.module!);
          return [abs, abs.split('.').slice(0, -1).join('.')];
        }),
        maskedByKind.chunk,
      )
    : [];
  for (const source of sources) {
    const kind = SOURCE_KIND[source];
    const index = cache.get(store, repoId, enc.id, kind, enc.dim);
    const masked = maskedByKind[kind];
    const perStep = queries.map((q, qi) => ({ q, qi })).filter((x) => x.q.source === source);
    const lists: { step: number; query: string; found: Candidate[] }[] = [];
    const allIds = new Set<number>();
    for (const { q, qi } of perStep) {
      const qv = qvecs[qi]!;
      const found = new Map<number, Set<Finder>>();
      const add = (id: number, f: Finder) => {
        let s = found.get(id);
        if (!s) found.set(id, (s = new Set()));
        s.add(f);
      };
      let tt = performance.now();
      const hits = opts.search === 'exact' ? index.exactSearch(qv, k * 2, masked) : index.search(qv, k * 2, masked);
      for (const h of hits) add(h.id, 'vector');
      timings.vector = (timings.vector ?? 0) + performance.now() - tt;
      tt = performance.now();
      for (const id of lexicalHits(store, kind, repoId, q.text, config.retrieval.lexicalCandidates, masked)) add(id, 'lexical');
      timings.lexical = (timings.lexical ?? 0) + performance.now() - tt;
      if (source === 'context') for (const id of [...structural, ...imported]) add(id, 'structure');
      const candidates: Candidate[] = [];
      for (const [id, finders] of found) {
        const r = index.cosine(id, qv);
        // An item without a vector (not embedded yet) has no relevance to report: it is left out.
        if (r === null) continue;
        candidates.push({ id, r, vector: index.vector(id), finders: [...finders] });
        allIds.add(id);
      }
      lists.push({ step: q.step, query: q.text, found: candidates });
    }
    let tf = performance.now();
    const items = fetchItems(store, kind, [...allIds]);
    timings.fetch = (timings.fetch ?? 0) + performance.now() - tf;
    for (const list of lists) {
      const withItems: (ScoredItem & Candidate)[] = [];
      for (const c of list.found) {
        const item = items.get(c.id);
        if (item) withItems.push({ ...c, item });
      }
      // Rank by cosine; repository context favours the target's own module, its imports and its class.
      const rankKey = (x: { r: number; item: Item }) => (source === 'context' ? x.r + 0.1 * (1 - localityOf(x.item.module, targetCtx)) : x.r);
      withItems.sort((a, b) => rankKey(b) - rankKey(a) || a.id - b.id);
      const top = withItems.slice(0, k);
      const step = dec.steps[list.step]!;
      const scores = scoreList(source, top, list.query, targetCtx);
      const refined =
        source === 'api' && config.fusion.refineApi
          ? refineApi(
              top.map((x) => x.item),
              { module: target.module, qualname: task.qualname ?? null, name: target.name, signature: task.signature },
            )
          : new Map();
      top.forEach((x, rank) => {
        const ref = refined.get(rank);
        evidence.push({
          key: x.item.key,
          source,
          step: list.step,
          rank,
          finders: x.finders,
          title: x.item.title,
          module: x.item.module,
          qualname: x.item.qualname,
          file: x.item.file,
          startLine: x.item.startLine,
          endLine: x.item.endLine,
          text: x.item.text,
          r: x.r,
          w: step.weights[source],
          u: scores[rank]!.u,
          signals: scores[rank]!.signals,
          gamma: 0,
          kept: !ref,
          reason: ref ? ref.reason : '',
          provenance: [],
        });
      });
    }
  }
  timings.retrieve = performance.now() - t;

  t = performance.now();
  const fused = fuse(evidence, config.fusion);
  timings.fuse = performance.now() - t;

  const sourceUncertainty = Object.fromEntries(
    SOURCES.map((s) => {
      const us = evidence.filter((e) => e.source === s).map((e) => e.u);
      return [s, us.length ? us.reduce((a, b) => a + b, 0) / us.length : null];
    }),
  ) as Record<Source, number | null>;
  timings.total = performance.now() - t0;
  const trace: RetrievalTrace = {
    taskId: task.id,
    steps: dec.steps,
    decomposition: dec.warning ? `${dec.label} (${dec.warning})` : dec.label,
    evidence,
    sourceUncertainty,
    fused,
    encoder: { id: encoder.id, name: encoder.name },
    masked: target.maskedTitles,
    timingsMs: timings,
  };
  if (opts.persist !== false) saveTrace(store, repoId, enc.id, config, trace);
  return trace;
}

export function saveTrace(store: Store, repoId: number, encoderId: number, config: PipelineConfig, trace: RetrievalTrace): number {
  return store.write('a retrieval trace', () =>
    Number(
      store.db
        .prepare('INSERT INTO retrieval_traces(repo_id, task_id, config_hash, encoder_id, created_at, trace) VALUES (?, ?, ?, ?, ?, ?)')
        .run(repoId, trace.taskId, configHash(config).slice(0, 16), encoderId, new Date().toISOString(), JSON.stringify(trace)).lastInsertRowid,
    ),
  );
}

/** The latest stored trace of a task, or null. */
export function loadTrace(store: Store, taskId: string): RetrievalTrace | null {
  const row = store.db.prepare('SELECT trace FROM retrieval_traces WHERE task_id = ? ORDER BY id DESC LIMIT 1').get(taskId) as
    | { trace: string }
    | undefined;
  return row ? (JSON.parse(row.trace) as RetrievalTrace) : null;
}
