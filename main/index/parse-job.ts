// One parse request: tree-sitter units and chunks, API entries and the FTS texts. Runs in a parse worker,
// or in the calling thread when the pool is in-thread (a handful of files does not pay for starting workers).

import { createExtractor, type Extractor } from './extract.ts';
import { buildApiEntries } from './api.ts';
import { isTestFile } from './test-files.ts';
import { apiLexicalText, chunkLexicalText, unitLexicalText } from '../store/lexical.ts';
import type { ParseReply, ParseRequest } from './parse-pool.ts';

let extractorReady: Promise<Extractor> | null = null;

export async function handleParse(req: ParseRequest): Promise<ParseReply> {
  try {
    extractorReady ??= createExtractor();
    const extractor = await extractorReady;
    const result = extractor.parse(req.relPath, req.language, req.source);
    // Test code is indexed, but it is not API knowledge (see test-files.ts).
    const api = isTestFile(req.relPath) ? [] : buildApiEntries(result);
    const lexical = req.lexical
      ? {
          units: result.units.map((u) => (u.kind === 'module' ? '' : unitLexicalText(u))),
          chunks: result.chunks.map(chunkLexicalText),
          api: api.map(apiLexicalText),
        }
      : undefined;
    return { id: req.id, ok: true, result, api, lexical };
  } catch (err) {
    return { id: req.id, ok: false, error: (err as Error)?.stack ?? String(err) };
  }
}
