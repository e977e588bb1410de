// Worker thread: parses files with tree-sitter and derives API entries, so the main thread stays free.

import { parentPort } from 'node:worker_threads';
import { createExtractor } from './extract.ts';
import { buildApiEntries } from './api.ts';
import { isTestFile } from './test-files.ts';
import { apiLexicalText, chunkLexicalText, unitLexicalText } from '../store/lexical.ts';
import type { ParseRequest, ParseReply } from './parse-pool.ts';

const port = parentPort;
if (!port) throw new Error('parse-worker must run in a worker thread');

const extractorReady = createExtractor();

port.on('message', async (req: ParseRequest) => {
  let reply: ParseReply;
  try {
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
    reply = { id: req.id, ok: true, result, api, lexical };
  } catch (err) {
    reply = { id: req.id, ok: false, error: (err as Error)?.stack ?? String(err) };
  }
  port.postMessage(reply);
});
