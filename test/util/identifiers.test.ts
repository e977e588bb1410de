// The one identifier splitter: digits apart for the embedder's features (test/embed/features.test.ts covers that
// mode), digits attached for the FTS5 lexical text, whose stored indexes were built with that rule.

import { describe, expect, it } from 'vitest';
import { splitIdentifier } from '../../main/util/identifiers.ts';
import { lexicalText, queryTerms } from '../../main/store/lexical.ts';
import { Xoshiro128 } from '../../main/embed/hash-table.ts';

describe("splitIdentifier(…, 'attached')", () => {
  it.each([
    ['parseHTTPResponse2', ['parse', 'http', 'response2']],
    ['sha256Sum', ['sha256', 'sum']],
    ['sha256sum', ['sha256sum']],
    ['HTTP2Server', ['http2', 'server']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['ABc', ['a', 'bc']],
    ['snake_caseName', ['snake', 'case', 'name']],
    ['__init__', ['init']],
    ['', []],
  ])('%s', (ident, expected) => {
    expect(splitIdentifier(ident, 'attached')).toEqual(expected);
  });

  it('splits a word without separators as the lexical index always did (two regex rules, lower-cased)', () => {
    const before = (s: string) =>
      s
        .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
        .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
        .toLowerCase()
        .split(' ')
        .filter(Boolean);
    const rng = new Xoshiro128(5);
    const alphabet = 'aAbBzZ09xXyY';
    for (let n = 0; n < 3000; n++) {
      let s = '';
      const len = 1 + (rng.nextU32() % 12);
      for (let i = 0; i < len; i++) s += alphabet[rng.nextU32() % alphabet.length];
      expect(splitIdentifier(s, 'attached'), s).toEqual(before(s));
    }
  });

  it('gives the lexical text its camelCase parts and the query its terms', () => {
    expect(lexicalText('def parseHTTPResponse2(x)')).toBe('def parseHTTPResponse2(x)\nparse http response2');
    expect(queryTerms('load_userProfile from the cache')).toEqual(['load', 'user', 'profile', 'cache']);
  });
});
