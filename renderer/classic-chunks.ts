// Code splitting with classic scripts only (vite.config.ts says why there are no module scripts). Rolldown builds
// CommonJS chunks; each chunk's code is wrapped in a function registered under its own script URL
// (`document.currentScript.src`), and the main entry carries a tiny loader: `require('./x.js')` runs a registered
// chunk once, and the lazy parts' scripts are added to the page on demand. index.html gets a `<script defer>` per
// shared chunk, then the main entry with the lazy parts' file lists in `data-lazy-chunks`.

import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/** The lazy parts, one module each in renderer/src/lazy/chunks/: `entries` (name → the part's absolute path). */
export interface LazyChunks {
  /** The absolute path of the folder of chunk modules, which the build replaces with calls to the loader. */
  dir: string;
  entries: Record<string, string>;
}

const PART = /^import \* as part from '([^']+)';$/;

/** Reads each `<name>.ts` in `dir`: one `import * as part from 'path';` line; any other import there, or none, is an error. */
export function readLazyChunks(folder: string): LazyChunks {
  const dir = path.resolve(folder);
  const entries: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (!name.endsWith('.ts')) throw new Error(`${file}: the lazy chunks' folder holds <name>.ts files only`);
    const imports = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^import\b/.test(line));
    const m = imports.length === 1 ? PART.exec(imports[0]!.trim()) : null;
    if (!m) throw new Error(`${file}: a lazy chunk has one import, of the form import * as part from 'path'; (it has ${imports.join(' / ') || 'none'})`);
    const target = path.resolve(dir, m[1]!);
    if (!fs.existsSync(target)) throw new Error(`${file}: the part names ${target}, which does not exist`);
    entries[name.slice(0, -'.ts'.length)] = target;
  }
  if (!Object.keys(entries).length) throw new Error(`${dir}: no lazy chunk module, so no lazy part to build`);
  return { dir, entries };
}

/** The loader, run by the main entry before its own code; serialised with toString(), so it must stand alone. */
function loader(registry: Record<string, (require: (spec: string) => unknown, module: { exports: object }, exports: object) => void>) {
  const script = document.currentScript as HTMLScriptElement | null;
  if (!script) throw new Error('OpenCoder UI: the main bundle must run as a classic <script>');
  const lazy = JSON.parse(script.dataset.lazyChunks ?? '{}') as Record<string, string[]>;
  const modules = new Map<string, { exports: object }>();
  const requireFrom =
    (from: string) =>
    (spec: string): object => {
      const url = new URL(spec, from).href;
      const done = modules.get(url);
      if (done) return done.exports;
      const define = registry[url];
      if (!define) throw new Error(`OpenCoder UI: ${from} needs ${url}, which has not been loaded`);
      const module = { exports: {} };
      modules.set(url, module);
      define(requireFrom(url), module, module.exports);
      return module.exports;
    };
  const fetching = new Map<string, Promise<void>>();
  const fetchScript = (url: string): Promise<void> => {
    if (registry[url]) return Promise.resolve();
    let p = fetching.get(url);
    if (!p) {
      p = new Promise<void>((resolve, reject) => {
        const s = document.createElement('script');
        s.src = url;
        s.onload = () => (registry[url] ? resolve() : reject(new Error(`OpenCoder UI: ${url} loaded but registered no chunk`)));
        s.onerror = () => {
          fetching.delete(url);
          s.remove();
          reject(new Error(`OpenCoder UI: could not load ${url}`));
        };
        document.head.append(s);
      });
      fetching.set(url, p);
    }
    return p;
  };
  (self as unknown as { __opencoderLoadChunk: (name: string) => Promise<object> }).__opencoderLoadChunk = (name: string) => {
    const files = lazy[name];
    if (!files?.length) return Promise.reject(new Error(`OpenCoder UI: this build has no chunk named "${name}"`));
    const urls = files.map((f) => new URL(f, script.src).href);
    return Promise.all(urls.map(fetchScript)).then(() => requireFrom(script.src)(urls[urls.length - 1]!));
  };
  return requireFrom(script.src);
}

const REGISTER = '(self.__opencoderChunks ||= {})[document.currentScript.src] = function (require, module, exports) {\n';

/** The build's chunks as classic scripts; `lazy` from readLazyChunks. */
export function classicChunks(lazy: LazyChunks): Plugin {
  const lazyNames = new Set(Object.keys(lazy.entries));
  const isMain = (chunk: { isEntry: boolean; name: string }) => chunk.isEntry && chunk.name === 'index';
  // Every module the main entry imports statically (set at buildEnd): they make one chunk that the page loads first,
  // so the lazy parts find all of it there instead of in chunks cut by which parts share what.
  const initialModules = new Set<string>();
  return {
    name: 'opencoder-classic-chunks',
    apply: 'build',
    enforce: 'post',
    config: () => ({
      build: {
        rolldownOptions: {
          output: {
            format: 'cjs',
            codeSplitting: { groups: [{ name: 'main', test: (id: string) => initialModules.has(id), priority: 100 }] },
            dynamicImportInCjs: false,
            postBanner: (chunk) =>
              isMain(chunk) ? `(() => {\nconst requireChunk = (${loader.toString()})(self.__opencoderChunks ||= {});\n${REGISTER}` : REGISTER,
            postFooter: (chunk) => (isMain(chunk) ? '\n};\nrequireChunk(document.currentScript.src);\n})();' : '\n};'),
          },
        },
      },
    }),
    // Each chunk module becomes a call to the loader; the parts themselves are the build's other entries.
    load(id) {
      const file = path.resolve(id.split('?')[0]!);
      const name = path.basename(file, '.ts');
      if (path.dirname(file) !== lazy.dir || !lazyNames.has(name)) return null;
      return `export const chunk = () => self.__opencoderLoadChunk(${JSON.stringify(name)});\n`;
    },
    buildEnd(error) {
      if (error) return;
      const mainEntry = [...this.getModuleIds()].find((id) => this.getModuleInfo(id)?.isEntry && !Object.values(lazy.entries).includes(id));
      if (!mainEntry) throw new Error('classic chunks: no main entry (index.html) among the modules');
      const stack = [mainEntry];
      while (stack.length) {
        const id = stack.pop()!;
        if (initialModules.has(id)) continue;
        initialModules.add(id);
        stack.push(...(this.getModuleInfo(id)?.importedIds ?? []));
      }
      for (const [name, file] of Object.entries(lazy.entries))
        if (initialModules.has(file)) throw new Error(`classic chunks: the lazy part "${name}" (${file}) is imported statically by the first screen's code`);
    },
    renderChunk(_code, chunk) {
      // A dynamic import() would become a require() of a chunk nobody loaded.
      if (chunk.dynamicImports.length)
        throw new Error(`${chunk.fileName}: dynamic import() of ${chunk.dynamicImports.join(', ')}; lazy code belongs in renderer/src/lazy/chunks/`);
      return null;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return html;
        const chunks = Object.values(bundle).flatMap((o) => (o.type === 'chunk' ? [o] : []));
        const main = chunks.find(isMain);
        if (!main) throw new Error('classic chunks: the build has no "index" entry');
        const byFile = new Map(chunks.map((c) => [c.fileName, c]));
        // A chunk's static imports, deepest first, then the chunk.
        const closure = (file: string, out: string[] = []): string[] => {
          if (out.includes(file)) return out;
          const c = byFile.get(file);
          if (!c) throw new Error(`classic chunks: ${file} is imported but not in the bundle`);
          for (const dep of c.imports) closure(dep, out);
          out.push(file);
          return out;
        };
        const initial = closure(main.fileName);
        const dir = path.posix.dirname(main.fileName);
        const rel = (f: string) => path.posix.relative(dir, f);
        const lazyFiles: Record<string, string[]> = {};
        for (const c of chunks) {
          if (!c.isEntry || !lazyNames.has(c.name)) continue;
          lazyFiles[c.name] = closure(c.fileName)
            .filter((f) => !initial.includes(f))
            .map(rel);
        }
        for (const n of lazyNames) if (!lazyFiles[n]) throw new Error(`classic chunks: no chunk was built for the lazy part "${n}"`);
        const tags = initial.map((f) =>
          f === main.fileName ? `<script defer src="./${f}" data-lazy-chunks='${JSON.stringify(lazyFiles)}'></script>` : `<script defer src="./${f}"></script>`,
        );
        const out = html
          .replace(/<script type="module"[^>]*><\/script>\s*/g, '')
          .replace(/<link rel="modulepreload"[^>]*>\s*/g, '')
          .replace(/<link rel="stylesheet" crossorigin href=/g, '<link rel="stylesheet" href=')
          .replace('</head>', `  ${tags.join('\n    ')}\n  </head>`);
        if (/type="module"|crossorigin/.test(out)) throw new Error(`classic chunks: index.html still has a module script or crossorigin:\n${out}`);
        return out;
      },
    },
  };
}
