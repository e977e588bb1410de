// What retrieval reads from the index besides the vectors, cached per index state where it is reused across
// tasks: items by file, the items of test files and of the files a test command names, BM25 recall with the
// full-text index's term statistics, the target's structural chunks, and the headers and APIs its module imports.

import {
  apiEntriesNamed,
  bm25Match,
  itemCount,
  filePaths,
  itemPaths,
  testShapedUnits,
  moduleHeaderChunks,
  structureChunks,
  termDocFrequency,
  termDocFrequencyPage,
} from '../store/code-queries.ts';
import type { ItemKind, Store } from '../store/store.ts';
import { ftsQuery, queryTerms } from '../store/lexical.ts';
import { namedByTestCommand, testFilesOf } from '../index/test-files.ts';
import { type TargetInfo } from './target.ts';
import { importSource } from './uncertainty.ts';
import { packVersion, type Exclusion } from './vector-index.ts';
import { readDerivedIds, writeDerivedIds } from '../store/derived-ids.ts';
import { unlessUnwritable } from '../store/errors.ts';
import { inBackground } from '../util/background.ts';

/**
 * `make()` once per index state of a repository, under `part`: a long-lived engine re-indexes many times, and only
 * the value of the latest state is kept.
 */
const stateCache = new Map<string, { state: string; value: unknown }>();
function perIndexState<T>(store: Store, repoId: number, part: string, make: () => T): T {
  const state = store.getRepository(repoId)?.last_indexed_at ?? '';
  const key = `${store.path}|${repoId}|${part}`;
  const hit = stateCache.get(key);
  if (hit && hit.state === state) return hit.value as T;
  const value = make();
  stateCache.set(key, { state, value });
  return value;
}

/** A kind's item ids per file path. */
export function itemsByFile(store: Store, repoId: number, kind: ItemKind): Map<string, number[]> {
  return perIndexState(store, repoId, `files|${kind}`, () => {
    const byFile = new Map<string, number[]>();
    for (const r of itemPaths(store, repoId, kind)) {
      const list = byFile.get(r.path);
      if (list) list.push(r.id);
      else byFile.set(r.path, [r.id]);
    }
    return byFile;
  });
}

/** The paths of the repository's indexed files (read once per index state). */
export function repoFilePaths(store: Store, repoId: number): string[] {
  return perIndexState(store, repoId, 'paths', () => filePaths(store, repoId));
}

/**
 * Ids of items of `kind` that live in test files: files named as tests, and files that are tests by what they hold
 * (TestCase subclasses, pytest-collected tests; see index/test-files.ts).
 */
export function testItems(store: Store, repoId: number, kind: ItemKind): Set<number> {
  const part = `tests|${kind}`;
  return perIndexState(store, repoId, part, () => {
    // Kept in the store with the state they were made from: a process's first task reads them (see derived-ids.ts).
    const version = packVersion(store, repoId);
    const stored = readDerivedIds(store, repoId, part, version);
    if (stored) return new Set(stored);
    const tests = perIndexState(store, repoId, 'test-files', () => testFilesOf(repoFilePaths(store, repoId), testShapedUnits(store, repoId)));
    const ids = new Set<number>();
    for (const [file, items] of itemsByFile(store, repoId, kind)) if (tests.has(file)) for (const id of items) ids.add(id);
    unlessUnwritable(() => writeDerivedIds(store, repoId, part, version, Int32Array.from(ids)), undefined);
    return ids;
  });
}

/** After an index run: the test-file items of each kind made and kept, so that no process's first task makes them. */
export function warmTestItems(store: Store, repoId: number): void {
  for (const kind of ['unit', 'chunk', 'api'] as const) testItems(store, repoId, kind);
}

/** Items of `kind` in the files the task's test command names (never the target's own file). */
export function commandTestItems(store: Store, repoId: number, kind: ItemKind, command: string | undefined, targetFile: string | null): Set<number> {
  const named = namedByTestCommand(command);
  const ids = new Set<number>();
  if (!command) return ids;
  for (const [file, items] of itemsByFile(store, repoId, kind)) if (file !== targetFile && named(file)) for (const id of items) ids.add(id);
  return ids;
}

/**
 * Per kind's full-text index: its document count and the document frequency of terms, per index state. Until the
 * vocabulary is loaded, each term asked is one lookup (~0.05 ms), made once; the vocabulary is loaded in the
 * background, VOCAB_PAGE terms a slice, after which every term is known. Loading it up front cost the first task
 * of a process ~0.2 s at 120k units; a lookup for every term cost each later task ~5 ms. Only the latest state of
 * each store and kind is kept.
 */
const lexicalStatsCache = new Map<string, { state: string; docs: number; known: Map<string, number>; complete: boolean }>();
const VOCAB_PAGE = 5000;

function lexicalStats(store: Store, kind: ItemKind, state: string): { docs: number; df: (term: string) => number } {
  const key = `${store.path}|${kind}`;
  let stats = lexicalStatsCache.get(key);
  if (stats?.state !== state) {
    const fresh = { state, docs: itemCount(store, kind), known: new Map<string, number>(), complete: false };
    lexicalStatsCache.set(key, fresh);
    let after = '';
    inBackground(() => {
      if (lexicalStatsCache.get(key) !== fresh) return true; // a newer state replaced it
      const page = termDocFrequencyPage(store, kind, after, VOCAB_PAGE);
      for (const r of page) fresh.known.set(r.term, r.doc);
      if (page.length < VOCAB_PAGE) return (fresh.complete = true);
      after = page[page.length - 1]!.term;
      return false;
    });
    stats = fresh;
  }
  const s = stats;
  const df = (term: string) => {
    let n = s.known.get(term);
    if (n === undefined) {
      n = s.complete ? 0 : termDocFrequency(store, kind, term);
      if (!s.complete) s.known.set(term, n);
    }
    return n;
  };
  return { docs: s.docs, df };
}

/** Terms of a source's queries that BM25 recall uses, rarest first: at most LEXICAL_TERMS. */
const LEXICAL_TERMS = 6;
/** A term is informative for BM25 recall when it occurs in at most 20 documents or this share of them. */
const LEXICAL_RARITY = 0.001;

/**
 * BM25 recall over the FTS5 index, once per source for all its step queries, with the queries' rarest terms:
 * those in at most max(20, 0.1 %) of the documents, rarest first, at most LEXICAL_TERMS. Lexical recall pays
 * where it adds candidates: identifier-like terms that pin down a few documents the embedding may rank low.
 * A commoner term makes BM25 score thousands of documents to return what the vector search finds anyway (bench
 * corpus, 120k units, 40 tasks: of ~1,100 kept items, 4 came from BM25 alone with a 1 % bound, 2 with 0.1 %,
 * and the kept sets of the two bounds agree on 99 %). The hits are candidates of every step of the source,
 * each ranked by its cosine to that step's query, like the structural candidates.
 */
export function lexicalHits(
  run: { store: Store; repoId: number; indexState: string; masked: Record<ItemKind, Exclusion> },
  kind: ItemKind,
  texts: string[],
  limit: number,
): number[] {
  if (limit <= 0) return [];
  const { store, repoId } = run;
  const terms = [...new Set(texts.flatMap((t) => queryTerms(t)))];
  if (!terms.length) return [];
  const { docs, df } = lexicalStats(store, kind, run.indexState);
  const informative = terms
    .filter((t) => df(t) > 0 && df(t) <= Math.max(20, docs * LEXICAL_RARITY))
    .sort((a, b) => df(a) - df(b) || (a < b ? -1 : 1))
    .slice(0, LEXICAL_TERMS);
  const q = ftsQuery(informative);
  if (!q) return [];
  // Over-fetch so that masked and test-file hits can be dropped afterwards.
  const masked = run.masked[kind];
  return bm25Match(store, kind, repoId, q, limit * 4 + 16)
    .filter((id) => !masked.has(id))
    .slice(0, limit);
}

export function structuralChunks(store: Store, repoId: number, target: TargetInfo, masked: Exclusion): number[] {
  if (!target.file) return [];
  const ids: number[] = [];
  for (const c of structureChunks(store, repoId, target.file)) {
    if (c.kind === 'module_header' || (target.className && c.owner === target.className)) ids.push(c.id);
  }
  return ids.filter((id) => !masked.has(id));
}

export function importedHeaders(store: Store, repoId: number, modules: string[], masked: Exclusion): number[] {
  return moduleHeaderChunks(store, repoId, modules).filter((id) => !masked.has(id));
}

/** Top-level API entries the target's module imports by name (`from .m import a, b`; at most 16). */
export function importedApis(store: Store, repoId: number, module: string, imports: string[], masked: Exclusion): number[] {
  const wanted: { module: string; name: string }[] = [];
  for (const imp of imports) {
    const src = importSource(imp, module);
    if (src && src.name !== '*' && src.module) wanted.push(src);
  }
  if (!wanted.length) return [];
  return apiEntriesNamed(store, repoId, wanted)
    .filter((id) => !masked.has(id))
    .slice(0, 16);
}
