// Retrieval for one task: decompose → per source and step, candidates from vectors (+ BM25 and, for
// repository context, the target's own module, imports and class) → relevance r = cosine → top k →
// uncertainty → API refinement → fusion. Returns (and stores) the whole trace.

import type { Encoder } from '../model/encoder.ts';
import { DEFAULT_CONFIG, SOURCES, type PipelineConfig, type Source } from '../model/config.ts';
import { configHash } from '../util/config-hash.ts';
import { insertTrace, latestTrace } from '../store/traces.ts';
import { apiEntryModules, fileUnitCalls, indexState, unitCalls } from '../store/code-queries.ts';
import type { EncoderRow, ItemKind, Store } from '../store/store.ts';

import { decompose, signatureWords, type Decomposer } from './decompose.ts';
import { fuse } from './fuse.ts';
import { auditLeaks, taskTestSources } from './leak-audit.ts';
import { chunkModules, fetchItems, type Item } from '../store/items.ts';
import { refineApi } from './refine.ts';
import {
  candidateFeatures,
  decide,
  explain,
  SELECTION_SIGNAL_WEIGHTS,
  shippedSelector,
  type Candidate as ApiCandidate,
  type SelectorModel,
} from './select-api.ts';
import { resolveTarget, type RetrievalTask, type TargetInfo } from './target.ts';
import { localityOf, resolveImport, scoreList, type ScoredItem, type TargetContext } from './uncertainty.ts';
import { VectorIndexCache, type Exclusion, type Hit, type VectorIndex } from './vector-index.ts';
import type { Evidence, Finder, LeakAudit, RetrievalTrace, Step } from '../model/trace.ts';
import { OpenCoderError } from '../model/errors.ts';
import { repoFilePaths, testItems, commandTestItems, lexicalHits, structuralChunks, importedHeaders, importedApis } from './index-lookups.ts';

export type { RetrievalTask };

export const SOURCE_KIND: Record<Source, ItemKind> = { api: 'api', context: 'chunk', similar: 'unit' };

export class RetrievalError extends OpenCoderError {
  constructor(message: string) {
    super('not-found', message);
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
  /**
   * Vector search: 'approx' (default) — the sign-code prefilter with exact rescoring over the index without test-file
   * items; 'exact' — an exact scan of the same; 'brute-force' — an exact scan of every stored vector with the
   * excluded ones masked (what every search was before; the benchmark's baseline).
   */
  search?: 'approx' | 'exact' | 'brute-force';
  /**
   * The API selector used by API refinement (default: the one shipped in resources/api-selector.json);
   * null switches selection off and leaves only the refinement rules (what the selector's fit needs).
   */
  selector?: SelectorModel | null;
  /** Receives the selector's candidates with their features and decisions (the selector's fit collects them). */
  onSelection?: (candidates: ApiCandidate[]) => void;
  /** Only these modules' API entries form the API pool (the task-view protocol's module view); default: all. */
  apiModules?: Set<string>;
}

const defaultCache = new VectorIndexCache();

interface Candidate {
  id: number;
  r: number;
  vector: Float32Array | null;
  finders: Finder[];
}

/** What the phases of one task's retrieval share. */
interface Run {
  store: Store;
  repoId: number;
  enc: EncoderRow;
  config: PipelineConfig;
  cache: VectorIndexCache;
  search: RetrieveOptions['search'];
  target: TargetInfo;
  targetCtx: TargetContext;
  steps: Step[];
  /** Items each kind's search must skip. */
  masked: Record<ItemKind, Exclusion>;
  /** The same for the vector search: the test-file items (searched as an index without them) and the rest. */
  vectorMasked: Record<ItemKind, VectorExclusion>;
  /** indexState() when the task started (keys the database-wide lexical caches). */
  indexState: string;
  timings: Record<string, number>;
  /** What the phases produce: the evidence in order, and the item behind each evidence key. */
  evidence: Evidence[];
  itemByKey: Map<string, Item>;
}

/** One sub-query: the step and source it is for, and its text. */
interface Query {
  step: number;
  source: Source;
  text: string;
}

/** Candidates every step's query of a source gets, whatever it finds itself. */
interface StructuralIds {
  /** Repository context: the target's module header and class chunks, and the headers of what it imports. */
  context: number[];
  /** API knowledge the target's module imports by name. */
  api: number[];
}

/** What the vector search of a kind skips: test-file items (null: none), and the rest as an exclusion. */
interface VectorExclusion {
  tests: Set<number> | null;
  rest: Exclusion;
}

type Selection = Map<string, { p: number; selected: boolean; why: string }>;

/** Adds the time since `since` to `timings[key]` (phases that run once per source or step). */
function addTime(timings: Record<string, number>, key: string, since: number): void {
  timings[key] = (timings[key] ?? 0) + performance.now() - since;
}

/** Retrieves, scores and fuses the evidence for one task. */
export async function retrieveForTask(opts: RetrieveOptions): Promise<RetrievalTrace> {
  const t0 = performance.now();
  const { store, encoder, repoId, task } = opts;
  const config = opts.config ?? DEFAULT_CONFIG;
  const enc = checkedEncoder(store, encoder, repoId);
  const timings: Record<string, number> = {};
  let t = performance.now();
  const target = resolveTarget(store, repoId, task);
  const targetCtx: TargetContext = { module: target.module, imports: target.imports, arity: signatureWords(task.signature).params.length };
  const { masked, vector: vectorMasked } = exclusions(store, repoId, config, target, opts.apiModules, task.test_command);
  timings.target = performance.now() - t;

  t = performance.now();
  const dec = await decompose(
    { requirement: task.requirement, signature: task.signature, module: target.module ?? undefined, className: target.className },
    config,
    opts.decomposer,
  );
  timings.decompose = performance.now() - t;

  const sources = SOURCES.filter((s) => config.retrieval.sources[s]);
  const queries: Query[] = [];
  for (const step of dec.steps) for (const s of sources) queries.push({ step: step.index, source: s, text: step.queries[s] });
  // The encoder runs in its own thread: the candidates that need no query vector (structural and lexical) are
  // found while it embeds the queries. timings.embed is the wait for the vectors that remains after them.
  const embedding = queries.length ? encoder.embed(queries.map((q) => q.text)) : Promise.resolve([] as Float32Array[]);
  // A rejected embedding is awaited below; until then it must not count as unhandled.
  embedding.catch(() => {});

  const cache = opts.cache ?? defaultCache;
  const run: Run = {
    store,
    repoId,
    enc,
    config,
    cache,
    search: opts.search,
    target,
    targetCtx,
    steps: dec.steps,
    masked,
    vectorMasked,
    indexState: indexState(store),
    timings,
    evidence: [],
    itemByKey: new Map(),
  };
  t = performance.now();
  const structural = structuralIds(run);
  const lexical = new Map<Source, number[]>();
  const tl = performance.now();
  for (const source of sources)
    lexical.set(
      source,
      lexicalHits(
        run,
        SOURCE_KIND[source],
        queries.filter((q) => q.source === source).map((q) => q.text),
        config.retrieval.lexicalCandidates,
      ),
    );
  timings.lexical = performance.now() - tl;
  const te = performance.now();
  const qvecs = await embedding;
  timings.embed = performance.now() - te;
  for (const source of sources) sourceEvidence(run, source, queries, qvecs, structural, lexical.get(source)!);
  timings.retrieve = performance.now() - t - timings.embed;

  t = performance.now();
  const refineTarget = { module: target.module, qualname: task.qualname ?? null, name: target.name, signature: task.signature };
  let selection: Selection | null = null;
  let selectionThreshold = 0;
  if (config.fusion.refineApi) {
    const selector = opts.selector === undefined ? shippedSelector() : opts.selector;
    if (selector) selectionThreshold = selector.threshold;
    if (selector)
      selection = selectApis(
        store,
        repoId,
        run.evidence,
        run.itemByKey,
        refineTarget,
        target,
        task,
        dec.steps.length,
        config.fusion.alpha,
        selector,
        opts.onSelection,
      );
  }
  timings.select = performance.now() - t;

  // The leakage audit: what the masks missed of the reference or the tests, before anything is fused.
  t = performance.now();
  const policy = config.retrieval.leakPolicy ?? 'off';
  let leak: LeakAudit | undefined;
  if (policy !== 'off') {
    // Only a task with a test command reads the paths (those it names are read as its tests).
    const tests = taskTestSources(task, store.getRepository(repoId)?.root ?? null, task.test_command ? repoFilePaths(store, repoId) : []);
    const checked = new Set(run.evidence.filter((e) => e.kept).map((e) => e.key)).size;
    const suspects = auditLeaks(
      run.evidence,
      { reference: target.referenceText, tests, requirement: `${task.requirement}\n${task.signature}`, targetName: target.name },
      policy,
    );
    leak = { policy, checked, suspects, against: [...(target.referenceText ? ['reference'] : []), ...tests.map(([where]) => `tests ${where}`)] };
  }
  timings.leak = performance.now() - t;

  t = performance.now();
  const { evidence } = run;
  const fused = fuse(evidence, config.fusion, {
    refine: config.fusion.refineApi ? refineHook(run.itemByKey, refineTarget, selection, selectionThreshold) : undefined,
  });
  for (const e of evidence) {
    const sel = e.source === 'api' ? selection?.get(e.key) : undefined;
    if (sel?.selected && e.kept && e.reason.startsWith('kept')) e.reason += ` — API selection: needed (p ${sel.p.toFixed(2)}; ${sel.why})`;
  }
  timings.fuse = performance.now() - t;

  const sourceUncertainty = meanUncertainty(evidence);
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
    ...(leak ? { leak } : {}),
    timingsMs: timings,
  };
  if (opts.persist !== false) saveTrace(store, repoId, enc.id, config, trace);
  return trace;
}

/** The store's row for `encoder`; throws unless the repository exists and was indexed with it. */
function checkedEncoder(store: Store, encoder: Encoder, repoId: number): EncoderRow {
  const repo = store.getRepository(repoId);
  if (!repo) throw new RetrievalError(`No repository with id ${repoId} in ${store.path}; index it first.`);
  const enc = store.registerEncoder(encoder);
  if (repo.encoder_id !== enc.id) {
    const used = repo.encoder_id != null ? store.getEncoder(repo.encoder_id)?.name : null;
    throw new RetrievalError(`${repo.root} was indexed with ${used ?? 'no encoder'}, not ${encoder.name}; run opencoder index on it with this encoder first.`);
  }
  return enc;
}

/**
 * Excluded per kind: the masked items, test-file items (a cached set: checked, not copied), and API entries outside
 * `apiModules`; and, for the vector search, the test-file items apart (searched as an index without them) and the rest.
 */
function exclusions(
  store: Store,
  repoId: number,
  config: PipelineConfig,
  target: TargetInfo,
  apiModules: Set<string> | undefined,
  testCommand: string | undefined,
): { masked: Record<ItemKind, Exclusion>; vector: Record<ItemKind, VectorExclusion> } {
  const excluded = (sets: Set<number>[]): Exclusion => ({ has: (id: number) => sets.some((s) => s.has(id)), sets });
  const rest: Record<ItemKind, Set<number>[]> = { unit: [target.masked.units], chunk: [target.masked.chunks], api: [target.masked.api] };
  if (config.retrieval.excludeTests && testCommand) {
    // The modules the task's own test command names are its tests, whatever their names say.
    for (const kind of ['unit', 'chunk', 'api'] as const) rest[kind].push(commandTestItems(store, repoId, kind, testCommand, target.file));
  }
  if (apiModules) {
    rest.api.push(
      new Set(
        apiEntryModules(store, repoId)
          .filter((r) => !apiModules.has(r.module))
          .map((r) => r.id),
      ),
    );
  }
  const masked = {} as Record<ItemKind, Exclusion>;
  const vector = {} as Record<ItemKind, VectorExclusion>;
  for (const kind of ['unit', 'chunk', 'api'] as const) {
    const tests = config.retrieval.excludeTests ? testItems(store, repoId, kind) : null;
    masked[kind] = excluded(tests ? [...rest[kind], tests] : rest[kind]);
    vector[kind] = { tests, rest: excluded(rest[kind]) };
  }
  return { masked, vector };
}

/** The candidates that come from the target's place in the repository rather than from a query. */
function structuralIds(run: Run): StructuralIds {
  const { store, repoId, target, masked } = run;
  const importedModules = target.module ? target.imports.map((i) => i.split('#')[0]!).filter(Boolean) : [];
  const structural = structuralChunks(store, repoId, target, masked.chunk);
  const imported = target.module
    ? importedHeaders(
        store,
        repoId,
        // `from .utils import slugify` names pkg.utils.slugify: the module is the name or its parent.
        importedModules.flatMap((m) => {
          const abs = resolveImport(m, target.module!);
          return [abs, abs.split('.').slice(0, -1).join('.')];
        }),
        masked.chunk,
      )
    : [];
  // API knowledge the target's module imports by name (`from .validation import is_string`): candidates for
  // every step, as the module header names them; r is still the cosine to the step's query.
  const ts = performance.now();
  const importedApi = target.module ? importedApis(store, repoId, target.module, target.imports, masked.api) : [];
  run.timings.importedApi = performance.now() - ts;
  return { context: [...structural, ...imported], api: importedApi };
}

/** One source: candidates for each step's query, ranked, cut to top k and scored, appended to the run's evidence. */
function sourceEvidence(run: Run, source: Source, queries: Query[], qvecs: Float32Array[], structural: StructuralIds, lexical: number[]): void {
  const { store, timings } = run;
  const kind = SOURCE_KIND[source];
  const index = run.cache.get(store, run.repoId, run.enc.id, kind, run.enc.dim);
  const lists: { step: number; query: string; found: Candidate[] }[] = [];
  const allIds = new Set<number>();
  const shared = { structure: source === 'context' ? structural.context : source === 'api' ? structural.api : [], lexical };
  // Vector search for all the source's step queries at once (one pass over the index's codes).
  const tv = performance.now();
  const mineVecs = queries.flatMap((q, qi) => (q.source === source ? [qvecs[qi]!] : []));
  const k = run.config.retrieval.perSourceTopK;
  const { tests, rest } = run.vectorMasked[kind];
  const view = tests ? index.without(tests) : index;
  const vectorHits =
    run.search === 'brute-force'
      ? mineVecs.map((v) => index.exactSearch(v, k * 2, run.masked[kind]))
      : run.search === 'exact'
        ? mineVecs.map((v) => view.exactSearch(v, k * 2, rest))
        : view.searchMany(mineVecs, k * 2, rest);
  addTime(timings, 'vector', tv);
  let mi = 0;
  queries.forEach((q, qi) => {
    if (q.source !== source) return;
    const found = stepCandidates(index, qvecs[qi]!, vectorHits[mi++]!, shared);
    for (const c of found) allIds.add(c.id);
    lists.push({ step: q.step, query: q.text, found });
  });
  // Ranking needs only r, the finders and (repository context) the module: the full items (texts, bodies) are read
  // for each list's top k only. An item that cannot be read leaves its place to the next candidate.
  const tf = performance.now();
  const modules = source === 'context' ? chunkModules(store, [...allIds]) : null;
  const rankKey = (c: Candidate): number =>
    modules ? c.r + 0.1 * (1 - localityOf(modules.get(c.id) ?? '', run.targetCtx)) : source === 'api' && c.finders.includes('structure') ? c.r + 0.2 : c.r;
  const ranked = lists.map((list) =>
    list.found
      .filter((c) => !modules || modules.has(c.id))
      .map((c) => ({ c, key: rankKey(c) }))
      .sort((a, b) => b.key - a.key || a.c.id - b.c.id)
      .map((x) => x.c),
  );
  const items = new Map<number, Item>();
  const unreadable = new Set<number>();
  const topOf = (cands: Candidate[]) => cands.filter((c) => !unreadable.has(c.id)).slice(0, k);
  for (;;) {
    const want = [...new Set(ranked.flatMap((cands) => topOf(cands).map((c) => c.id)))].filter((id) => !items.has(id));
    if (!want.length) break;
    const got = fetchItems(store, kind, want);
    for (const id of want) {
      const item = got.get(id);
      if (item) items.set(id, item);
      else unreadable.add(id);
    }
  }
  addTime(timings, 'fetch', tf);
  lists.forEach((list, li) => {
    const top: (ScoredItem & Candidate)[] = topOf(ranked[li]!).map((c) => ({ ...c, item: items.get(c.id)! }));
    const w = run.steps[list.step]!.weights[source];
    const ts = performance.now();
    const scores = scoreList(source, top, list.query, run.targetCtx);
    addTime(timings, 'score', ts);
    top.forEach((x, rank) => {
      run.itemByKey.set(x.item.key, x.item);
      run.evidence.push(evidenceOf(x, source, list.step, rank, w, scores[rank]!));
    });
  });
}

/** One query's candidates (its vector hits, and the source's lexical and structural ones), each with its cosine r; items without a vector are left out. */
function stepCandidates(index: VectorIndex, qv: Float32Array, hits: Hit[], shared: { structure: number[]; lexical: number[] }): Candidate[] {
  const found = new Map<number, Set<Finder>>();
  const add = (id: number, f: Finder) => {
    let s = found.get(id);
    if (!s) found.set(id, (s = new Set()));
    s.add(f);
  };
  for (const h of hits) add(h.id, 'vector');
  for (const id of shared.lexical) add(id, 'lexical');
  for (const id of shared.structure) add(id, 'structure');
  const candidates: Candidate[] = [];
  for (const [id, finders] of found) {
    const r = index.cosine(id, qv);
    // An item without a vector (not embedded yet) has no relevance to report: it is left out.
    if (r === null) continue;
    candidates.push({ id, r, vector: index.vector(id), finders: [...finders] });
  }
  return candidates;
}

/** The evidence record of a ranked, scored candidate (kept until fusion says otherwise). */
function evidenceOf(x: ScoredItem & Candidate, source: Source, step: number, rank: number, w: number, score: ReturnType<typeof scoreList>[number]): Evidence {
  return {
    key: x.item.key,
    source,
    step,
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
    w,
    u: score.u,
    signals: score.signals,
    gamma: 0,
    kept: true,
    reason: '',
    subkind: x.item.subkind,
    provenance: [],
  };
}

/**
 * Target-aware API refinement, after the keep rule, over the API items kept in any step: the rules
 * (refine.ts) on the distinct items, best γ first, then the selector's decision.
 */
function refineHook(itemByKey: Map<string, Item>, refineTarget: Parameters<typeof refineApi>[1], selection: Selection | null, selectionThreshold: number) {
  return (api: Evidence[]): void => {
    const distinct: Evidence[] = [];
    const seen = new Set<string>();
    for (const e of api) {
      if (seen.has(e.key)) continue;
      seen.add(e.key);
      distinct.push(e);
    }
    const ruled = refineApi(
      distinct.map((e) => itemByKey.get(e.key)!),
      refineTarget,
    );
    const dropByKey = new Map<string, string>();
    distinct.forEach((e, i) => {
      const r = ruled.get(i);
      if (r) dropByKey.set(e.key, r.reason);
    });
    for (const e of api) {
      const rule = dropByKey.get(e.key);
      if (rule) {
        e.kept = false;
        e.droppedAt = 'refinement';
        e.reason = rule;
        continue;
      }
      const sel = selection?.get(e.key);
      if (sel && !sel.selected) {
        e.kept = false;
        e.droppedAt = 'selection';
        e.reason = `API selection: not needed (p ${sel.p.toFixed(2)} below ${selectionThreshold.toFixed(2)}; ${sel.why})`;
      }
    }
  };
}

/** Mean u of each source's evidence (null for a source with none). */
function meanUncertainty(evidence: Evidence[]): Record<Source, number | null> {
  return Object.fromEntries(
    SOURCES.map((s) => {
      const us = evidence.filter((e) => e.source === s).map((e) => e.u);
      return [s, us.length ? us.reduce((a, b) => a + b, 0) / us.length : null];
    }),
  ) as Record<Source, number | null>;
}

/**
 * Scores every API the refinement rules would leave with the selector (select-api.ts), records p on each of
 * its items, and folds the selection signals into their u (so γ, the keep rule and the trace all see them).
 * Returns the decision per item key.
 */
function selectApis(
  store: Store,
  repoId: number,
  evidence: Evidence[],
  itemByKey: Map<string, Item>,
  refineTarget: Parameters<typeof refineApi>[1],
  target: TargetInfo,
  task: RetrievalTask,
  steps: number,
  alpha: number,
  model: SelectorModel,
  onSelection?: (candidates: ApiCandidate[]) => void,
): Selection {
  const api = evidence.filter((e) => e.source === 'api');
  const out: Selection = new Map();
  if (!api.length) return out;
  const distinct = [...new Map(api.map((e) => [e.key, e])).values()].sort((a, b) => b.r - a.r || a.rank - b.rank);
  const ruled = refineApi(
    distinct.map((e) => itemByKey.get(e.key)!),
    refineTarget,
  );
  const ruledOut = new Set(distinct.filter((_, i) => ruled.has(i)).map((e) => e.key));
  const siblings = target.file ? fileUnitCalls(store, repoId, target.file).filter((r) => !target.masked.units.has(r.id)) : [];
  const similarKeys = new Set(evidence.filter((e) => e.source === 'similar').map((e) => e.key));
  const similarIds = [...similarKeys].filter((k) => k.startsWith('unit:')).map((k) => Number(k.slice(5)));
  const similar = unitCalls(store, similarIds);
  const candidates = candidateFeatures(
    api.filter((e) => !ruledOut.has(e.key)),
    {
      requirement: task.requirement,
      signature: task.signature,
      targetModule: target.module,
      targetImports: target.imports,
      siblingCalls: siblings.map((r) => r.calls),
      similarCalls: similar,
      similarKeys,
      steps,
      alpha,
    },
  );
  decide(model, candidates);
  onSelection?.(candidates);
  const { selector: ws, support: wsup } = SELECTION_SIGNAL_WEIGHTS;
  const rest = 1 - ws - wsup;
  for (const c of candidates) {
    const why = explain(model, c);
    const support = c.features[0]!;
    for (const e of c.occurrences) {
      out.set(e.key, { p: c.p, selected: c.selected, why });
      e.selectorP = c.p;
      e.signals = [
        ...e.signals.map((sig) => ({ ...sig, weight: sig.weight * rest })),
        { name: 'selector', value: 1 - c.p, weight: ws, detail: `API selector ${model.version}: p(needed) ${c.p.toFixed(3)} (${why})` },
        { name: 'support', value: 1 - support, weight: wsup, detail: `found in ${Math.round(support * steps)} of ${steps} steps` },
      ];
      e.u = Math.min(
        1,
        Math.max(
          0,
          e.signals.reduce((acc, sig) => acc + sig.weight * sig.value, 0),
        ),
      );
    }
  }
  return out;
}

export function saveTrace(store: Store, repoId: number, encoderId: number, config: PipelineConfig, trace: RetrievalTrace): number {
  return insertTrace(store, { repoId, taskId: trace.taskId, configHash: configHash(config).slice(0, 16), encoderId, trace });
}

/** The latest stored trace of a task, or null. */
export function loadTrace(store: Store, taskId: string): RetrievalTrace | null {
  return (latestTrace(store, taskId) as RetrievalTrace | undefined) ?? null;
}
