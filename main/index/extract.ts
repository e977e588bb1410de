// Parses one source file with tree-sitter into code units, context chunks and syntax problems. This module
// loads the grammars and hands each file to the extractor for its language: PythonFile (python-file.ts) or
// ScriptFile (script-file.ts), both built on the shared tree walk in source-file.ts.
import { createRequire } from 'node:module';
import path from 'node:path';
import { Parser, Language as Grammar } from 'web-tree-sitter';
import type { Language, ParseResult } from '../model/code.ts';
import { moduleNameForPath } from './languages.ts';
import { PythonFile } from './python-file.ts';
import { ScriptFile } from './script-file.ts';

export { cleandoc } from './docstrings.ts';
export { languageForPath, moduleNameForPath } from './languages.ts';
export { sha256 } from './source-text.ts';

export interface Extractor {
  /** Synchronous; never throws on bad syntax (problems are reported in `errors`). */
  parse(relPath: string, language: Language, source: string): ParseResult;
  /** Frees the wasm parser. The extractor must not be used afterwards. */
  dispose(): void;
}

const requireHere = createRequire(import.meta.url);

function grammarFile(pkg: string, file: string): string {
  return path.join(path.dirname(requireHere.resolve(`${pkg}/package.json`)), file);
}

// Per-thread caches: each worker thread gets its own module instance, hence its own wasm runtime.
let initOnce: Promise<void> | null = null;
let grammarsOnce: Promise<Record<Language, Grammar>> | null = null;

function loadGrammars(): Promise<Record<Language, Grammar>> {
  initOnce ??= Parser.init();
  grammarsOnce ??= initOnce.then(async () => {
    const [python, typescript, tsx, javascript] = await Promise.all([
      Grammar.load(grammarFile('tree-sitter-python', 'tree-sitter-python.wasm')),
      Grammar.load(grammarFile('tree-sitter-typescript', 'tree-sitter-typescript.wasm')),
      Grammar.load(grammarFile('tree-sitter-typescript', 'tree-sitter-tsx.wasm')),
      Grammar.load(grammarFile('tree-sitter-javascript', 'tree-sitter-javascript.wasm')),
    ]);
    return { python, typescript, tsx, javascript };
  });
  return grammarsOnce;
}

export async function createExtractor(): Promise<Extractor> {
  const grammars = await loadGrammars();
  const parser = new Parser();
  let current: Language | null = null;
  return {
    parse(relPath, language, source) {
      if (current !== language) {
        parser.setLanguage(grammars[language]);
        current = language;
      }
      const tree = parser.parse(source);
      if (!tree) throw new Error(`tree-sitter returned no tree for ${relPath}`);
      try {
        const moduleName = moduleNameForPath(relPath, language);
        const file =
          language === 'python' ? new PythonFile(source, language, moduleName, tree.rootNode) : new ScriptFile(source, language, moduleName, tree.rootNode);
        return file.run();
      } finally {
        tree.delete();
      }
    },
    dispose() {
      parser.delete();
    },
  };
}
