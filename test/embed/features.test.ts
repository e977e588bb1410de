import { describe, expect, it } from 'vitest';
import {
  bucketOf,
  countFeatures,
  DEFAULT_FEATURE_CONFIG,
  EMPTY_FEATURE,
  extractIdentifiers,
  hashFeatures,
  hashFeaturesReference,
  trigrams,
} from '../../main/embed/features.ts';
import { splitIdentifier, splitIdentifierUnicode } from '../../main/util/identifiers.ts';
import { Xoshiro128 } from '../../main/embed/hash-table.ts';

describe('splitIdentifier', () => {
  it.each([
    ['parseHTTPResponse', ['parse', 'http', 'response']],
    ['parseHttpResponse', ['parse', 'http', 'response']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['IOError', ['io', 'error']],
    ['HTTPServer2', ['http', 'server', '2']],
    ['getX', ['get', 'x']],
    ['ABc', ['a', 'bc']],
    ['URL', ['url']],
    ['snake_case_name', ['snake', 'case', 'name']],
    ['SCREAMING_SNAKE_CASE', ['screaming', 'snake', 'case']],
    ['__init__', ['init']],
    ['_private_helper', ['private', 'helper']],
    ['$scope', ['scope']],
    ['sha256sum', ['sha', '256', 'sum']],
    ['base64Encode', ['base', '64', 'encode']],
    ['int32_t', ['int', '32', 't']],
    ['v2', ['v', '2']],
    ['ÉtatCivil', ['état', 'civil']],
  ])('%s', (ident, expected) => {
    expect(splitIdentifier(ident)).toEqual(expected);
  });

  it('the fast ASCII scanner agrees with the general splitter', () => {
    const rng = new Xoshiro128(3);
    const alphabet = 'aAbBzZ09_$xXyY';
    for (let n = 0; n < 5000; n++) {
      let s = '';
      const len = 1 + (rng.nextU32() % 12);
      for (let i = 0; i < len; i++) s += alphabet[rng.nextU32() % alphabet.length];
      expect(splitIdentifier(s), s).toEqual(splitIdentifierUnicode(s));
    }
  });
});

describe('extractIdentifiers and trigrams', () => {
  it('finds identifier-like words and skips pure numbers', () => {
    expect(extractIdentifiers('x = parse_http(resp) + 42 * self.maxSize; // déjà')).toEqual(['x', 'parse_http', 'resp', 'self', 'maxSize', 'déjà']);
  });

  it('marks word boundaries in trigrams', () => {
    expect(trigrams('parse')).toEqual(['^pa', 'par', 'ars', 'rse', 'se$']);
    expect(trigrams('ab')).toEqual(['^ab', 'ab$']);
  });
});

describe('countFeatures', () => {
  it('emits sub-tokens, whole identifiers and trigrams, skipping stop words', () => {
    const f = countFeatures('def parseHttp(self): return parseHttp');
    expect(f.get('s:parse')).toBe(2);
    expect(f.get('s:http')).toBe(2);
    expect(f.get('w:parse_http')).toBe(2);
    expect(f.get('t:^pa')).toBe(2);
    expect(f.get('t:tp$')).toBe(2);
    for (const stop of ['s:def', 's:self', 's:return']) expect(f.has(stop)).toBe(false);
    // whole identifiers only for compound names
    expect([...f.keys()].filter((k) => k.startsWith('w:'))).toEqual(['w:parse_http']);
  });

  it('maps camelCase and snake_case spellings to the same features', () => {
    const a = countFeatures('parseHttpResponse');
    const b = countFeatures('parse_http_response');
    expect(new Set(a.keys())).toEqual(new Set(b.keys()));
  });

  it('drops one-letter sub-tokens on their own but keeps them in whole identifiers', () => {
    const f = countFeatures('getX');
    expect(f.has('s:x')).toBe(false);
    expect(f.get('w:get_x')).toBe(1);
  });

  it('shares trigrams between morphological variants', () => {
    const a = new Set([...countFeatures('format').keys()].filter((k) => k.startsWith('t:')));
    const b = [...countFeatures('formatter').keys()].filter((k) => k.startsWith('t:'));
    expect(b.filter((t) => a.has(t)).length).toBeGreaterThanOrEqual(4);
  });
});

describe('hashFeatures', () => {
  const samples = [
    'def parse_http_response(resp):\n    """Parse an HTTP response."""\n    return json.loads(resp.body)',
    'class XMLHttpRequest extends EventTarget { open(method, url) { this.readyState = 1; } }',
    'aaaa aaaa bbbbbb ünïcödé_names 𝒳variable',
    'x = 1',
    '',
    // ASCII scanner edge cases: `$`, leading digits, dunders, a word at the very end
    'const $el = __init__(x1, 123abc, _private$); $',
    // counts past the 1 + ln(n) lookup table
    'tick '.repeat(300) + 'tock',
  ];

  it.each(samples)('agrees with the plain reference: %j', (text) => {
    const fast = hashFeatures(text);
    const ref = hashFeaturesReference(text);
    expect(Array.from(fast.ids)).toEqual(Array.from(ref.ids));
    for (let i = 0; i < ref.weights.length; i++) expect(fast.weights[i]).toBeCloseTo(ref.weights[i]!, 5);
  });

  it('gives sorted bucket ids in range with sublinear weights', () => {
    const f = hashFeatures('parse parse parse parse');
    expect(Array.from(f.ids)).toEqual([...f.ids].sort((a, b) => a - b));
    for (const id of f.ids) {
      expect(id).toBeGreaterThanOrEqual(0);
      expect(id).toBeLessThan(DEFAULT_FEATURE_CONFIG.buckets);
    }
    const { bucket, sign } = bucketOf('s:parse', DEFAULT_FEATURE_CONFIG);
    const w = f.weights[Array.from(f.ids).indexOf(bucket)]!;
    // tf 4 → 1 + ln 4 (no trigram of "parse" shares this bucket)
    expect(Math.abs(w - sign * (1 + Math.log(4)))).toBeLessThan(1e-5);
  });

  it('gives a text without features the empty bucket', () => {
    const f = hashFeatures('  42 + 7 ;; ');
    expect(Array.from(f.ids)).toEqual([bucketOf(EMPTY_FEATURE, DEFAULT_FEATURE_CONFIG).bucket]);
    expect(Array.from(f.weights)).toEqual([1]);
  });

  it('keeps at most maxFeatures buckets, the heaviest', () => {
    const text = Array.from({ length: 400 }, (_, i) => `name${String.fromCharCode(97 + (i % 26))}${i}word`).join(' ') + ' parse parse parse';
    const cfg = { ...DEFAULT_FEATURE_CONFIG, maxFeatures: 50 };
    const f = hashFeatures(text, cfg);
    expect(f.ids.length).toBe(50);
    const all = hashFeatures(text);
    const cut = Math.min(...Array.from(f.weights, Math.abs));
    const dropped = Array.from(all.weights).filter((_, i) => !f.ids.includes(all.ids[i]!));
    for (const w of dropped) expect(Math.abs(w)).toBeLessThanOrEqual(cut);
    // The reference keeps the same buckets, except where |weight| ties at the cut (summation order differs).
    const ref = hashFeaturesReference(text, cfg);
    const refIds = Array.from(ref.ids);
    const onlyFast = Array.from(f.ids).filter((id) => !refIds.includes(id));
    expect(onlyFast.length).toBeLessThan(5);
    for (const id of onlyFast) expect(Math.abs(f.weights[Array.from(f.ids).indexOf(id)]!) - cut).toBeLessThan(1e-6);
  });
});
