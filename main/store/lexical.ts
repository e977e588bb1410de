// Text prepared for the FTS5 lexical indexes (BM25 recall). FTS5's unicode61 tokenizer splits on `_`
// and punctuation but not inside camelCase, so the camelCase parts of identifiers are appended.
// A unit's lexical text is its name, signature and docstring plus the distinct identifiers of its body:
// BM25 recall needs the vocabulary, not every repetition, and indexing whole bodies cost more than
// parsing them.

import { splitIdentifier } from '../util/identifiers.ts';

const CAMEL = /[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*/g;
const WORD = /[A-Za-z_][A-Za-z0-9_]*/g;

export function lexicalText(text: string): string {
  const extra = new Set<string>();
  for (const m of text.matchAll(CAMEL)) {
    for (const part of splitIdentifier(m[0], 'attached')) extra.add(part);
  }
  return extra.size ? `${text}\n${[...extra].join(' ')}` : text;
}

function distinctWords(text: string): string {
  return [...new Set(text.match(WORD) ?? [])].join(' ');
}

export function unitLexicalText(u: { qualname: string; signature: string; docstring: string | null; body: string }): string {
  return lexicalText(`${u.qualname}\n${u.signature}\n${u.docstring ?? ''}\n${distinctWords(u.body)}`);
}

export function chunkLexicalText(c: { text: string }): string {
  return lexicalText(c.text);
}

export function apiLexicalText(a: { text: string }): string {
  return lexicalText(a.text);
}

/** Lexical texts of one parsed file, computed where the parse happened (a worker) to spare the writer. */
export interface LexicalTexts {
  units: string[];
  chunks: string[];
  api: string[];
}

const STOP = new Set(
  (
    'a an and are as at be by can do does for from has have if in into is it its may must not of on or ' +
    'should so than that the then there these this those to was were when which will with without ' +
    'def return self cls none true false class import raise lambda yield pass else elif while'
  ).split(' '),
);

/** The distinct lower-case word tokens of free text (identifiers split at `_` and camelCase), stop words left out. */
export function queryTerms(text: string, maxTerms = 64): string[] {
  const terms = new Set<string>();
  for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    for (const part of splitIdentifier(word, 'attached')) if (part.length > 1 && !STOP.has(part)) terms.add(part);
    if (terms.size >= maxTerms) break;
  }
  return [...terms];
}

/** A safe FTS5 OR-query of the given terms (quoted: no FTS syntax can leak through), or null. */
export function ftsQuery(terms: string[]): string | null {
  const clean = terms.filter((t) => /^[a-z0-9]+$/.test(t));
  return clean.length ? clean.map((t) => `"${t}"`).join(' OR ') : null;
}
