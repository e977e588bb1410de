// One project: its rows' views → its modules. Every view is repaired and read into items (the row's focal
// function, the reference, replacing the view's copy), each item is attributed to a module (attribute.ts),
// and each module is the merge of everything attributed to it, its own rows first (merge.ts).

import { attributeItems, type Analysed, type Occurrence } from './attribute.ts';
import { repoFolderForProject, type RawRow } from './inputs.ts';
import { mergeItems, renderModule } from './merge.ts';
import { parseClean, repairSource, type PythonTools } from './python-parser.ts';
import { dedent, shiftBlock } from './python-text.ts';
import type { Recorder } from './types.ts';
import { importFacts, viewItems, withoutStringsAndComments, type ImportFacts, type Item } from './view-items.ts';

export interface BuiltModule {
  module: string;
  /** Path relative to the repository root. */
  file: string;
  source: string;
  fromRows: boolean;
}

/** Where a row's focal function went: its file (relative to the repository), qualname and module. */
export interface FocalPlace {
  file: string;
  qualname: string;
  module: string;
}

export interface BuiltProject {
  project: string;
  repoFolder: string;
  rows: RawRow[];
  modules: BuiltModule[];
  /** Every .py file to write (modules and empty package __init__ files), relative path → content. */
  files: Map<string, string>;
  /** problem id → where its focal function went. */
  focal: Map<number, FocalPlace>;
  /** problem id → the row's own `code` view after repair (only rows whose view repaired). */
  views: Map<number, string>;
  stubsFilled: number;
}

/** Whether a module of `set` lies below `m` (which makes `m` a package). */
function isPrefixOf(set: Iterable<string>, m: string): boolean {
  return [...set].some((x) => x.startsWith(`${m}.`));
}

export function buildProject(project: string, rows: RawRow[], tools: PythonTools, rec: Recorder): BuiltProject {
  const repoFolder = repoFolderForProject(project)!;
  const rowModules = new Set(rows.map((r) => r.module));
  const tops = new Set([...rowModules].map((m) => m.split('.')[0]!));
  const inProject = (dotted: string) => tops.has(dotted.split('.')[0]!);
  let stubsFilled = 0;
  const views = new Map<number, string>();

  // Pass 1: repair and read every view.
  const analysed: Analysed[] = [];
  for (const row of rows) {
    const a = analyseView(row, isPrefixOf(rowModules, row.module), inProject, tools, rec);
    stubsFilled += a.filled;
    if (a.view !== null) views.set(row.problemId, a.view);
    analysed.push(a.analysed);
  }

  // Modules named anywhere; a name that prefixes another is a package (its __init__ re-exports).
  const referenced = new Set(rowModules);
  for (const a of analysed) for (const m of a.facts.referencedModules) referenced.add(m);
  const isPackage = (m: string) => isPrefixOf(referenced, m);

  // Pass 2: where does each item live?
  const accepted = attributeItems(analysed, isPackage, rec);
  const { modules, files, focal } = assembleModules(project, accepted, rowModules, isPackage, tools, rec);
  return { project, repoFolder, rows, modules, files, focal, views, stubsFilled };
}

/** Repairs and reads one row's view; `view` is the repaired source, null when the view did not repair. */
function analyseView(
  row: RawRow,
  moduleIsPackage: boolean,
  inProject: (dotted: string) => boolean,
  tools: PythonTools,
  rec: Recorder,
): { analysed: Analysed; filled: number; view: string | null } {
  const fixed = repairSource(tools.parser, row.code, tools.lineCache);
  for (const line of fixed.droppedLines) rec.drop('garbage-line', row, line.trim());
  let items: Item[] = [];
  let facts: ImportFacts = { fromImports: new Map(), projectStars: [], projectAliases: [], referencedModules: [] };
  let codeText = '';
  if (fixed.ok) {
    const tree = tools.parser.parse(fixed.source)!;
    try {
      const garbage: string[] = [];
      items = viewItems(tree.rootNode, fixed.source, garbage);
      for (const g of garbage) rec.drop('stray-name', row, g);
      facts = importFacts(tree.rootNode, row.module, moduleIsPackage, inProject);
      codeText = withoutStringsAndComments(tree.rootNode, fixed.source);
    } finally {
      tree.delete();
    }
  } else {
    rec.drop('unrepairable-view', row, `view of ${row.entryPoint}`);
    rec.warn(
      'unrepairable-view',
      row.file,
      row.line,
      `the code view of ${row.module}.${row.entryPoint} does not parse after repair; only its focal function is used (a task's view holds only its reference)`,
    );
  }
  items = placeFocal(row, items, tools, rec);
  return { analysed: { row, items, facts, text: codeText }, filled: fixed.filled, view: fixed.ok ? fixed.source : null };
}

/** Merge per module: own rows first (their order is the module's), then what others showed. */
function assembleModules(
  project: string,
  accepted: Occurrence[],
  rowModules: Set<string>,
  isPackage: (m: string) => boolean,
  tools: PythonTools,
  rec: Recorder,
): Pick<BuiltProject, 'modules' | 'files' | 'focal'> {
  const byModule = new Map<string, Occurrence[]>();
  for (const o of accepted) {
    if (!byModule.has(o.module)) byModule.set(o.module, []);
    byModule.get(o.module)!.push(o);
  }
  const allModules = [...byModule.keys()].sort();
  const fileOf = (m: string) => `${m.split('.').join('/')}${isPrefixOf(allModules, m) || isPackage(m) ? '/__init__.py' : '.py'}`;

  const modules: BuiltModule[] = [];
  const files = new Map<string, string>();
  const focal = new Map<number, FocalPlace>();
  for (const m of allModules) {
    const occ = byModule
      .get(m)!
      .sort((a, b) => Number(a.row.module !== m) - Number(b.row.module !== m) || a.row.problemId - b.row.problemId || a.index - b.index);
    const merged = mergeItems(occ.map((o) => o.item));
    const file = fileOf(m);
    const source = renderModule(m, merged, tools, (what) =>
      rec.warn('invalid-after-merge', file, undefined, `${project}: ${what} made ${m} unparseable and was removed`),
    );
    modules.push({ module: m, file, source, fromRows: rowModules.has(m) });
    files.set(file, source);
    for (const o of occ) {
      if (o.strength !== 'focal') continue;
      const qualname = o.item.focalClass ? `${o.item.focalClass}.${o.row.entryPoint}` : o.row.entryPoint;
      focal.set(o.row.problemId, { file, qualname, module: m });
    }
  }
  // Package folders need an __init__.py to be importable (and indexed as packages).
  for (const file of [...files.keys()]) {
    for (const init of packageInits(file)) if (!files.has(init)) files.set(init, '');
  }
  return { modules, files, focal };
}

/** The `__init__.py` files that make the folders above `file` packages (not `file` itself). */
export function packageInits(file: string): string[] {
  const parts = file.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const init = `${parts.slice(0, i).join('/')}/__init__.py`;
    if (init !== file) out.push(init);
  }
  return out;
}

/** Puts the row's focal function (the reference, always full) in place of its view copy. */
function placeFocal(row: RawRow, items: Item[], tools: PythonTools, rec: Recorder): Item[] {
  const focalText = row.focal.replace(/\s+$/, '');
  const indented = /^[ \t]/.test(focalText.split('\n').find((l) => l.trim()) ?? '');
  if (indented) {
    // A method: the view shows it inside its class; the reference goes there.
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i]!;
      if (it.kind !== 'class' || !it.members?.some((mm) => mm.key === `def:${row.entryPoint}`)) continue;
      const members = it.members.map((mm) => (mm.key === `def:${row.entryPoint}` ? { key: mm.key, text: shiftBlock(dedent(focalText), 0, 4), rank: 3 } : mm));
      const out = items.slice();
      out[i] = { ...it, members, focal: true, focalClass: it.name! };
      return out;
    }
    rec.warn(
      'focal-method-without-class',
      row.file,
      row.line,
      `${row.module}.${row.entryPoint} is indented but no class in its view has it; placed at module level`,
    );
  }
  const text = indented ? dedent(focalText) : focalText;
  if (!parseClean(tools.parser, text)) {
    rec.warn('focal-unparseable', row.file, row.line, `the focal function ${row.module}.${row.entryPoint} does not parse; kept as written`);
  }
  const item: Item = { kind: 'def', key: `def:${row.entryPoint}`, name: row.entryPoint, text, rank: 3, focal: true };
  let at = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i]!.kind === 'def' && items[i]!.name === row.entryPoint) {
      at = i;
      break;
    }
  }
  const out = items.filter((it, i) => i !== at && !(it.kind === 'def' && it.key === item.key));
  // Other same-key defs of the view (stubs of overloads) are superseded by the reference.
  out.splice(at === -1 ? out.length : Math.min(at, out.length), 0, item);
  return out;
}
