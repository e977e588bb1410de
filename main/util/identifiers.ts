// Splitting identifiers into lower-cased words, for the two indexes that match code by its names: the hashed
// features of the embedder (embed/features.ts) and the FTS5 lexical text (store/lexical.ts). The two differ in
// one rule, digits, and each keeps its own because stored indexes and embeddings were built with it.

/** Upper-case run not followed by lower case (acronym), capitalised or lower-case word, digit run. Letters without
 * case (CJK…), title-case letters and combining marks count as lower case. */
const SUBTOKEN_RE = /\p{Lu}+(?![\p{Ll}\p{Lo}\p{Lm}\p{Lt}\p{M}])|\p{Lu}?[\p{Ll}\p{Lo}\p{Lm}\p{Lt}\p{M}]+|\p{N}+/gu;
// eslint-disable-next-line no-control-regex -- the ASCII range starts at NUL on purpose
export const NON_ASCII_RE = /[^\x00-\x7f]/;

/**
 * Splits one identifier at `_`, `$` and case changes into lower-cased words: `parseHTTPResponse` → parse, http,
 * response. `digits`: 'apart' (the embedder's features) makes a digit run a word of its own (`sha256sum` → sha, 256,
 * sum); 'attached' (the lexical index) keeps digits on the word they touch, as FTS5's tokenizer does
 * (`parseHTTPResponse2` → parse, http, response2; `sha256sum` → sha256sum).
 */
export function splitIdentifier(identifier: string, digits: 'apart' | 'attached' = 'apart'): string[] {
  if (digits === 'attached') return splitDigitsAttached(identifier);
  return NON_ASCII_RE.test(identifier) ? splitIdentifierUnicode(identifier) : splitIdentifierAscii(identifier);
}

/** The general (regex) splitter with digits apart; splitIdentifier uses a faster scanner with the same result on ASCII. */
export function splitIdentifierUnicode(identifier: string): string[] {
  const out: string[] = [];
  for (const part of identifier.split(/[_$]+/)) {
    if (part.length === 0) continue;
    for (const m of part.matchAll(SUBTOKEN_RE)) out.push(m[0].toLowerCase());
  }
  return out;
}

/** ASCII case rules only: a word breaks before an upper-case letter that follows a lower-case letter or a digit, and
 * an acronym ends one letter before a capitalised word. */
function splitDigitsAttached(identifier: string): string[] {
  return identifier
    .split(/[_$]+/)
    .flatMap((part) =>
      part
        .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
        .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
        .toLowerCase()
        .split(' '),
    )
    .filter(Boolean);
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

function splitIdentifierAscii(s: string): string[] {
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    let j = i + 1;
    if (isLower(c)) {
      while (j < n && isLower(s.charCodeAt(j))) j++;
    } else if (isDigit(c)) {
      while (j < n && isDigit(s.charCodeAt(j))) j++;
    } else if (isUpper(c)) {
      while (j < n && isUpper(s.charCodeAt(j))) j++;
      if (j < n && isLower(s.charCodeAt(j))) {
        // an acronym ends one letter before a capitalised word: HTTPResponse → HTTP, Response
        if (j - i > 1) {
          out.push(s.slice(i, j - 1).toLowerCase());
          i = j - 1;
        }
        while (j < n && isLower(s.charCodeAt(j))) j++;
      }
    } else {
      i = j; // separator (_ or $)
      continue;
    }
    out.push(s.slice(i, j).toLowerCase());
    i = j;
  }
  return out;
}
