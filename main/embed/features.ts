// Featurisation for the default (hashing) encoder.
//
// Code text → identifiers → lower-cased sub-tokens (camelCase, PascalCase with acronyms, snake_case, digit runs)
// → three kinds of features:
//   s:<sub-token>                 every sub-token of two or more characters that is not on the stop-list
//   w:<sub_tokens_joined_by_underscore>  the whole identifier when it has two or more sub-tokens, so that
//                                 `parseHttpResponse` and `parse_http_response` share a feature
//   t:<trigram>                   character trigrams of each kept sub-token, with ^ and $ as boundary marks,
//                                 for robustness to morphology (`format` / `formatter`)
// Each feature is hashed into one of V buckets with a sign; colliding features add up. Counts get sublinear
// weights (1 + ln tf) times a per-kind weight. The dense part (projection, sum, normalisation) is the ONNX model.

import { NON_ASCII_RE, splitIdentifier } from '../util/identifiers.ts';

export interface FeatureConfig {
  /** Number of hash buckets (rows of the projection table). */
  buckets: number;
  /** Per-kind weights. A weight of 0 switches that kind of feature off. */
  subtokenWeight: number;
  identifierWeight: number;
  trigramWeight: number;
  /** Sub-tokens shorter than this are not features on their own (they still count in whole identifiers). */
  minSubtokenLength: number;
  /** At most this many buckets per text; the ones with the largest |weight| are kept. */
  maxFeatures: number;
  /** Seed mixed into every feature hash. */
  hashSeed: number;
  /** Words that are never features on their own: keywords and very common English words. */
  stopWords: readonly string[];
}

/** Language keywords (Python, JS/TS, Java, Go, Rust, C-family) and frequent English words. */
export const DEFAULT_STOP_WORDS: readonly string[] = [
  // Python
  'def',
  'self',
  'cls',
  'return',
  'class',
  'if',
  'elif',
  'else',
  'for',
  'while',
  'in',
  'is',
  'not',
  'and',
  'or',
  'import',
  'from',
  'as',
  'with',
  'try',
  'except',
  'finally',
  'raise',
  'pass',
  'break',
  'continue',
  'lambda',
  'yield',
  'none',
  'true',
  'false',
  'global',
  'nonlocal',
  'del',
  'assert',
  'async',
  'await',
  // JS / TS
  'const',
  'let',
  'var',
  'function',
  'new',
  'this',
  'null',
  'undefined',
  'typeof',
  'instanceof',
  'export',
  'default',
  'extends',
  'implements',
  'interface',
  'type',
  'enum',
  'public',
  'private',
  'protected',
  'static',
  'readonly',
  'void',
  'catch',
  'throw',
  'throws',
  'switch',
  'case',
  'do',
  'of',
  'super',
  // Java / Go / Rust / C
  'package',
  'final',
  'abstract',
  'func',
  'fn',
  'pub',
  'mut',
  'impl',
  'struct',
  'use',
  'mod',
  'crate',
  'go',
  'defer',
  'chan',
  'nil',
  'int',
  'char',
  'long',
  'short',
  'unsigned',
  'signed',
  'auto',
  'include',
  'define',
  'boolean',
  'bool',
  'str',
  'string',
  'any',
  'object',
  'args',
  'kwargs',
  // English
  'the',
  'a',
  'an',
  'to',
  'of',
  'it',
  'be',
  'by',
  'on',
  'at',
  'that',
  'this',
  'are',
  'was',
  'we',
  'you',
  'its',
  'can',
  'will',
  'if',
  'then',
  'than',
  'which',
  'these',
  'those',
  'there',
  'has',
  'have',
  'should',
  'may',
  'must',
  'all',
  'but',
  'also',
  'only',
];

export const DEFAULT_FEATURE_CONFIG: FeatureConfig = {
  buckets: 8192,
  subtokenWeight: 1,
  identifierWeight: 0.5,
  trigramWeight: 0.5,
  minSubtokenLength: 2,
  maxFeatures: 2048,
  hashSeed: 0x9e3779b9,
  stopWords: DEFAULT_STOP_WORDS,
};

const IDENTIFIER_RE = /[\p{L}\p{N}\p{M}_$]+/gu;
const HAS_LETTER_RE = /\p{L}/u;

/** Identifier-like words of a text (letters, digits, underscore, $), skipping pure numbers. */
export function extractIdentifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IDENTIFIER_RE)) {
    if (HAS_LETTER_RE.test(m[0])) out.push(m[0]);
  }
  return out;
}

/** Character trigrams of a sub-token with boundary marks: `parse` → ^pa, par, ars, rse, se$. */
export function trigrams(subtoken: string): string[] {
  const chars = Array.from(`^${subtoken}$`);
  const out: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) out.push(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  return out;
}

/** The named features of a text with their counts, before hashing (used by tests and for inspection). */
export function countFeatures(text: string, config: FeatureConfig = DEFAULT_FEATURE_CONFIG): Map<string, number> {
  const stop = stopSet(config);
  // Distinct identifiers first: code repeats its names, and each distinct one is split only once.
  const identCounts = new Map<string, number>();
  for (const m of text.matchAll(IDENTIFIER_RE)) {
    const w = m[0];
    identCounts.set(w, (identCounts.get(w) ?? 0) + 1);
  }
  const subCounts = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const [ident, n] of identCounts) {
    if (!HAS_LETTER_RE.test(ident)) continue;
    const subs = splitIdentifier(ident);
    if (subs.length >= 2 && config.identifierWeight !== 0) {
      const w = 'w:' + subs.join('_');
      counts.set(w, (counts.get(w) ?? 0) + n);
    }
    for (const s of subs) subCounts.set(s, (subCounts.get(s) ?? 0) + n);
  }
  for (const [s, n] of subCounts) {
    if (s.length < config.minSubtokenLength || stop.has(s) || !HAS_LETTER_RE.test(s)) continue;
    if (config.subtokenWeight !== 0) counts.set('s:' + s, (counts.get('s:' + s) ?? 0) + n);
    if (config.trigramWeight !== 0 && s.length >= 3) {
      for (const t of trigrams(s)) counts.set('t:' + t, (counts.get('t:' + t) ?? 0) + n);
    }
  }
  return counts;
}

const stopSets = new WeakMap<readonly string[], Set<string>>();
function stopSet(config: FeatureConfig): Set<string> {
  let s = stopSets.get(config.stopWords);
  if (!s) {
    s = new Set(config.stopWords);
    stopSets.set(config.stopWords, s);
  }
  return s;
}

/** 32-bit FNV-1a over UTF-16 code units followed by the murmur3 finaliser, seeded. */
export function hashFeature(feature: string, seed: number): number {
  return fmix(fnvStep((0x811c9dc5 ^ seed) >>> 0, feature));
}

/** Bucket and sign of one named feature. */
export function bucketOf(feature: string, config: FeatureConfig): { bucket: number; sign: 1 | -1 } {
  const h = hashFeature(feature, config.hashSeed);
  return { bucket: h % config.buckets, sign: h & 0x80000000 ? -1 : 1 };
}

function kindWeight(feature: string, config: FeatureConfig): number {
  switch (feature.charCodeAt(0)) {
    case 115:
      return config.subtokenWeight; // 's'
    case 119:
      return config.identifierWeight; // 'w'
    default:
      return config.trigramWeight; // 't'
  }
}

export interface HashedFeatures {
  /** Bucket ids, ascending. */
  ids: Int32Array;
  /** Signed weight per bucket (colliding features summed). */
  weights: Float32Array;
}

/** The bucket every text without features gets, so that its vector is still defined and unit length. */
export const EMPTY_FEATURE = 'e:<empty>';

const FNV_PRIME = 0x01000193;
const SURROGATE_RE = /[\uD800-\uDFFF]/;

function fnvStep(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// Kinds of feature, as the counting table stores them.
const KIND_SUB = 0;
const KIND_WHOLE = 1;
const KIND_TRI = 2;

// Code repeats its names across texts, so each distinct identifier's feature hashes are computed once and
// cached (bounded; cleared when full), as are its sub-tokens'. Results are identical to computing them afresh.
interface IdentInfo {
  /** Every feature hash of the identifier (whole identifier, sub-tokens, trigrams), with its kind at the same index. */
  hashes: Int32Array;
  kinds: Uint8Array;
}
interface SubtokenInfo {
  sub: number | null;
  tris: number[];
}
const CACHE_LIMIT = 250_000;
const caches = new WeakMap<FeatureConfig, { idents: Map<string, IdentInfo>; subs: Map<string, SubtokenInfo> }>();

function cacheFor(config: FeatureConfig) {
  let c = caches.get(config);
  if (!c) {
    c = { idents: new Map(), subs: new Map() };
    caches.set(config, c);
  }
  return c;
}

function remember<V>(m: Map<string, V>, k: string, v: V): void {
  if (m.size >= CACHE_LIMIT) m.clear();
  m.set(k, v);
}

function identInfo(ident: string, config: FeatureConfig, stop: Set<string>, seeds: Seeds, subs: Map<string, SubtokenInfo>): IdentInfo {
  if (!HAS_LETTER_RE.test(ident)) return { hashes: new Int32Array(0), kinds: new Uint8Array(0) };
  const parts = splitIdentifier(ident);
  const hashes: number[] = [];
  const kinds: number[] = [];
  if (parts.length >= 2 && config.identifierWeight !== 0) {
    hashes.push(fmix(fnvStep(seeds.w, parts.join('_'))));
    kinds.push(KIND_WHOLE);
  }
  for (const x of parts) {
    let si = subs.get(x);
    if (!si) {
      si = subtokenInfo(x, config, stop, seeds.s, seeds.t);
      remember(subs, x, si);
    }
    if (si.sub !== null) {
      hashes.push(si.sub);
      kinds.push(KIND_SUB);
    }
    for (const h of si.tris) {
      hashes.push(h);
      kinds.push(KIND_TRI);
    }
  }
  return { hashes: Int32Array.from(hashes), kinds: Uint8Array.from(kinds) };
}

interface Seeds {
  s: number;
  w: number;
  t: number;
}

function subtokenInfo(x: string, config: FeatureConfig, stop: Set<string>, seedS: number, seedT: number): SubtokenInfo {
  const info: SubtokenInfo = { sub: null, tris: [] };
  if (x.length < config.minSubtokenLength || stop.has(x) || !HAS_LETTER_RE.test(x)) return info;
  if (config.subtokenWeight !== 0) info.sub = fmix(fnvStep(seedS, x));
  if (config.trigramWeight !== 0 && x.length >= 3) {
    if (!SURROGATE_RE.test(x)) {
      // code units are code points: hash the trigrams of ^x$ straight from the char codes
      let c0 = 94; // ^
      let c1 = x.charCodeAt(0);
      for (let i = 1; i <= x.length; i++) {
        const c2 = i < x.length ? x.charCodeAt(i) : 36; // $
        info.tris.push(fmix(Math.imul(Math.imul(Math.imul(seedT ^ c0, FNV_PRIME) ^ c1, FNV_PRIME) ^ c2, FNV_PRIME)));
        c0 = c1;
        c1 = c2;
      }
    } else {
      // trigrams by code point; each code point hashed as its UTF-16 code units
      const cps = Array.from(x);
      cps.unshift('^');
      cps.push('$');
      for (let i = 0; i + 3 <= cps.length; i++) {
        info.tris.push(fmix(fnvStep(fnvStep(fnvStep(seedT, cps[i]!), cps[i + 1]!), cps[i + 2]!)));
      }
    }
  }
  return info;
}

/** Counts per (32-bit feature hash, kind), reset in O(1) by a generation stamp. Grows when half full. */
class FeatureTable {
  keys = new Int32Array(0);
  kinds = new Uint8Array(0);
  counts = new Float64Array(0);
  stamps = new Uint32Array(0);
  used = new Int32Array(0);
  usedCount = 0;
  private mask = 0;
  private gen = 0;

  constructor(size: number) {
    this.allocate(size);
  }

  private allocate(size: number): void {
    this.keys = new Int32Array(size);
    this.kinds = new Uint8Array(size);
    this.counts = new Float64Array(size);
    this.stamps = new Uint32Array(size);
    this.used = new Int32Array(size);
    this.mask = size - 1;
    this.gen = 1;
    this.usedCount = 0;
  }

  reset(): void {
    this.usedCount = 0;
    if (++this.gen === 0xffffffff) this.allocate(this.keys.length);
  }

  add(hash: number, kind: number, n: number): void {
    const key = hash | 0;
    let i = (key ^ (key >>> 15) ^ kind) & this.mask;
    while (this.stamps[i] === this.gen) {
      if (this.keys[i] === key && this.kinds[i] === kind) {
        this.counts[i]! += n;
        return;
      }
      i = (i + 1) & this.mask;
    }
    this.stamps[i] = this.gen;
    this.keys[i] = key;
    this.kinds[i] = kind;
    this.counts[i] = n;
    this.used[this.usedCount++] = i;
    if (this.usedCount * 2 > this.keys.length) this.grow();
  }

  private grow(): void {
    const old = { keys: this.keys, kinds: this.kinds, counts: this.counts, used: this.used, n: this.usedCount };
    this.allocate(this.keys.length * 2);
    for (let u = 0; u < old.n; u++) {
      const s = old.used[u]!;
      this.add(old.keys[s]!, old.kinds[s]!, old.counts[s]!);
    }
  }
}

const featureTable = new FeatureTable(1 << 14);

let scratch = new Float64Array(0);
let touchedScratch = new Int32Array(0);

// 1 + ln(n) for the small whole counts almost every feature has; larger or fractional counts use Math.log.
const LOG_TABLE = Float64Array.from({ length: 256 }, (_, n) => (n === 0 ? 0 : 1 + Math.log(n)));
const sublinear = (n: number) => (n < 256 && n === (n | 0) ? LOG_TABLE[n]! : 1 + Math.log(n));

/** Counts of the distinct identifier-like words of a text; ASCII texts are scanned by char code, the rest by IDENTIFIER_RE. */
function countIdentifiers(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (NON_ASCII_RE.test(text)) {
    for (const m of text.matchAll(IDENTIFIER_RE)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
    return counts;
  }
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!isWordChar(c)) {
      i++;
      continue;
    }
    const start = i;
    do c = text.charCodeAt(++i);
    while (i < n && isWordChar(c));
    const w = text.slice(start, i);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}

// [A-Za-z0-9_$]: the ASCII part of IDENTIFIER_RE
const isWordChar = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36;

/**
 * Hashes a text's features into signed, weighted buckets: the sparse input to the ONNX model. Same result as
 * hashing each feature of countFeatures() with bucketOf() (tested), without building the feature strings.
 */
export function hashFeatures(text: string, config: FeatureConfig = DEFAULT_FEATURE_CONFIG): HashedFeatures {
  const stop = stopSet(config);
  const seed = (0x811c9dc5 ^ config.hashSeed) >>> 0;
  const seeds: Seeds = { s: fnvStep(seed, 's:'), w: fnvStep(seed, 'w:'), t: fnvStep(seed, 't:') };
  const identCounts = countIdentifiers(text);
  // Feature counts live in a typed open-addressing table keyed by (hash, kind): far cheaper than Maps.
  const table = featureTable;
  table.reset();
  const cache = cacheFor(config);
  for (const [ident, n] of identCounts) {
    let info = cache.idents.get(ident);
    if (!info) {
      info = identInfo(ident, config, stop, seeds, cache.subs);
      remember(cache.idents, ident, info);
    }
    const { hashes, kinds } = info;
    for (let i = 0; i < hashes.length; i++) table.add(hashes[i]!, kinds[i]!, n);
  }
  const V = config.buckets;
  if (scratch.length < V) scratch = new Float64Array(V);
  if (touchedScratch.length < table.usedCount) touchedScratch = new Int32Array(Math.max(1024, table.usedCount * 2));
  const acc = scratch;
  const touched = touchedScratch;
  let nTouched = 0;
  const w0 = config.subtokenWeight;
  const w1 = config.identifierWeight;
  const w2 = config.trigramWeight;
  for (let u = 0; u < table.usedCount; u++) {
    const slot = table.used[u]!;
    const h = table.keys[slot]! >>> 0;
    const b = h % V;
    const kind = table.kinds[slot]!;
    const kw = kind === KIND_SUB ? w0 : kind === KIND_WHOLE ? w1 : w2;
    const w = (h & 0x80000000 ? -kw : kw) * sublinear(table.counts[slot]!);
    if (acc[b] === 0) touched[nTouched++] = b;
    acc[b]! += w;
    if (acc[b] === 0) acc[b] = Number.MIN_VALUE; // keep it marked as touched; dropped below
  }
  // Buckets in ascending order; cancelled ones (|w| at most MIN_VALUE) dropped.
  const sorted = touched.subarray(0, nTouched).sort();
  let kept = 0;
  for (let i = 0; i < nTouched; i++) {
    const b = sorted[i]!;
    if (Math.abs(acc[b]!) > Number.MIN_VALUE) sorted[kept++] = b;
    else acc[b] = 0;
  }
  if (kept === 0) return { ids: Int32Array.of(bucketOf(EMPTY_FEATURE, config).bucket), weights: Float32Array.of(1) };
  if (kept > config.maxFeatures) return strongest(sorted.subarray(0, kept), acc, config.maxFeatures);
  const ids = new Int32Array(kept);
  const weights = new Float32Array(kept);
  for (let i = 0; i < kept; i++) {
    const b = sorted[i]!;
    ids[i] = b;
    weights[i] = acc[b]!;
    acc[b] = 0;
  }
  return { ids, weights };
}

/** The `max` buckets with the largest |weight| (ties: lower bucket), ascending by bucket; clears their accumulators. */
function strongest(buckets: Int32Array, acc: Float64Array, max: number): HashedFeatures {
  const entries: Array<[number, number]> = [];
  for (const b of buckets) {
    entries.push([b, acc[b]!]);
    acc[b] = 0;
  }
  entries.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0] - b[0]);
  entries.length = max;
  entries.sort((a, b) => a[0] - b[0]);
  return { ids: Int32Array.from(entries, (e) => e[0]), weights: Float32Array.from(entries, (e) => e[1]) };
}

/** Plain version of hashFeatures built on countFeatures() and bucketOf(): the reference it is tested against. */
export function hashFeaturesReference(text: string, config: FeatureConfig = DEFAULT_FEATURE_CONFIG): HashedFeatures {
  const acc = new Map<number, number>();
  for (const [feature, tf] of countFeatures(text, config)) {
    const { bucket, sign } = bucketOf(feature, config);
    acc.set(bucket, (acc.get(bucket) ?? 0) + sign * kindWeight(feature, config) * (1 + Math.log(tf)));
  }
  let entries = [...acc].filter(([, w]) => Math.abs(w) > Number.MIN_VALUE);
  if (entries.length === 0) entries = [[bucketOf(EMPTY_FEATURE, config).bucket, 1]];
  if (entries.length > config.maxFeatures) {
    entries.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0] - b[0]);
    entries.length = config.maxFeatures;
  }
  entries.sort((a, b) => a[0] - b[0]);
  return { ids: Int32Array.from(entries, (e) => e[0]), weights: Float32Array.from(entries, (e) => e[1]) };
}
