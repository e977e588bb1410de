// Where each item of a project's views lives. An item stays in the module whose view shows it unless that
// view imports it by name from another project module; then it moves there, following re-exports, but
// only when nothing contradicts it (a package, another view defining it elsewhere, conflicting imports).
// Names a view could have received through a star import or an imported module stay only if confirmed.

import type { RawRow } from './inputs.ts';
import type { Recorder } from './types.ts';
import type { ImportFacts, Item } from './view-items.ts';

/** One row's view after repair: its items, what its imports bind, and its text for reference checks. */
export interface Analysed {
  row: RawRow;
  items: Item[];
  facts: ImportFacts;
  /** The view without string literals and comments (docstring examples say `pkg.Name` a lot). */
  text: string;
}

export interface Occurrence {
  module: string;
  item: Item;
  strength: 'focal' | 'local' | 'import' | 'weak' | 'dropped';
  /** Why a weak occurrence is doubtful (the drop reason when nothing confirms it). */
  doubt?: string;
  row: RawRow;
  index: number;
}

/** Key of a name in a module. */
function place(m: string, n: string): string {
  return `${m}\u0000${n}`;
}

/** The occurrences of every item of every view, in view order; `isPackage` tells packages (re-exporters). */
export function attributeItems(analysed: Analysed[], isPackage: (m: string) => boolean, rec: Recorder): Occurrence[] {
  const occurrences = locateItems(analysed, isPackage, rec);
  const strong = new Set<string>();
  const strongModulesOf = new Map<string, Set<string>>();
  for (const o of occurrences) {
    if ((o.strength === 'focal' || o.strength === 'local') && o.item.name && o.item.kind !== 'stmt') {
      strong.add(place(o.module, o.item.name));
      if (!strongModulesOf.has(o.item.name)) strongModulesOf.set(o.item.name, new Set());
      strongModulesOf.get(o.item.name)!.add(o.module);
    }
  }
  followReexports(occurrences, analysed, strong, isPackage, rec);
  return acceptOccurrences(occurrences, strong, strongModulesOf, rec);
}

/** First guess for each item: its own view's module, the module it is imported from, or a doubtful local one. */
function locateItems(analysed: Analysed[], isPackage: (m: string) => boolean, rec: Recorder): Occurrence[] {
  const occurrences: Occurrence[] = [];
  for (const { row, items, facts, text } of analysed) {
    items.forEach((item, index) => {
      const base = { item, row, index };
      if (item.focal) return occurrences.push({ ...base, module: row.module, strength: 'focal' });
      if (!item.name || item.kind === 'import' || item.kind === 'future' || item.kind === 'stmt') {
        return occurrences.push({ ...base, module: row.module, strength: 'local' });
      }
      const name = item.name;
      const b = facts.fromImports.get(name);
      if (b) {
        if (b.from.startsWith('<external>')) return rec.drop('external-import', row, `${name} (from ${b.from.slice(10)})`);
        if (isPackage(b.from)) return rec.drop('imported-from-package', row, `${name} (from ${b.from})`);
        if (b.from === row.module) return occurrences.push({ ...base, module: row.module, strength: 'local' });
        return occurrences.push({ ...base, module: b.from, strength: 'import' });
      }
      if (facts.projectStars.length && !name.startsWith('_')) {
        return occurrences.push({ ...base, module: row.module, strength: 'weak', doubt: 'star-import' });
      }
      const esc = name.replace(/[$]/g, '\\$');
      for (const alias of facts.projectAliases) {
        if (new RegExp(`(?<![\\w.])${alias}(?:\\.\\w+)*\\.${esc}\\b`).test(text)) {
          return occurrences.push({ ...base, module: row.module, strength: 'weak', doubt: 'attribute-reference' });
        }
      }
      return occurrences.push({ ...base, module: row.module, strength: 'local' });
    });
  }
  return occurrences;
}

/**
 * A view of X that itself imports N from Y shows that X only re-exports N: follow X → Y (in place).
 * An import cycle, or a chain that ends in a package, drops the occurrence.
 */
function followReexports(occurrences: Occurrence[], analysed: Analysed[], strong: Set<string>, isPackage: (m: string) => boolean, rec: Recorder): void {
  const reexports = new Map<string, string>();
  for (const a of analysed) {
    for (const b of a.facts.fromImports.values()) {
      if (!b.from.startsWith('<external>') && b.from !== a.row.module) reexports.set(place(a.row.module, b.original), b.from);
    }
  }
  const follow = (m: string, n: string): string | null => {
    const seen = new Set<string>();
    while (reexports.has(place(m, n)) && !strong.has(place(m, n))) {
      if (seen.has(m)) return null;
      seen.add(m);
      m = reexports.get(place(m, n))!;
    }
    return m;
  };
  for (let i = 0; i < occurrences.length; i++) {
    const o = occurrences[i]!;
    if (o.strength !== 'import') continue;
    const to = follow(o.module, o.item.name!);
    if (to === null) rec.drop('conflicting-imports', o.row, `${o.item.name} (import cycle from ${o.module})`);
    else if (to !== o.module && isPackage(to)) rec.drop('imported-from-package', o.row, `${o.item.name} (from ${o.module}, re-exported from ${to})`);
    else if (to !== o.module) occurrences[i] = { ...o, module: to };
    else continue;
    if (to === null || isPackage(to)) occurrences[i] = { ...o, strength: 'dropped' };
  }
}

/** The occurrences that stand: imports nothing contradicts, then own-view ones and confirmed weak ones. */
function acceptOccurrences(occurrences: Occurrence[], strong: Set<string>, strongModulesOf: Map<string, Set<string>>, rec: Recorder): Occurrence[] {
  const importTargets = new Map<string, Set<string>>();
  for (const o of occurrences) {
    if (o.strength !== 'import') continue;
    if (!importTargets.has(o.item.name!)) importTargets.set(o.item.name!, new Set());
    importTargets.get(o.item.name!)!.add(o.module);
  }
  const accepted: Occurrence[] = [];
  const confirmed = new Set(strong);
  for (const o of occurrences) {
    if (o.strength !== 'import') continue;
    const name = o.item.name!;
    if (strong.has(place(o.module, name))) accepted.push(o);
    else if (strongModulesOf.get(name)?.size)
      rec.drop('defined-elsewhere', o.row, `${name} (imported from ${o.module}, defined in ${[...strongModulesOf.get(name)!].sort().join(', ')})`);
    else if (importTargets.get(name)!.size > 1) rec.drop('conflicting-imports', o.row, `${name} (from ${[...importTargets.get(name)!].sort().join(', ')})`);
    else {
      accepted.push(o);
      confirmed.add(place(o.module, name));
    }
  }
  for (const o of occurrences) {
    if (o.strength === 'focal' || o.strength === 'local') accepted.push(o);
    else if (o.strength === 'weak') {
      if (confirmed.has(place(o.module, o.item.name!))) accepted.push(o);
      else rec.drop(o.doubt!, o.row, `${o.item.name} (in the view of ${o.row.module})`);
    }
  }
  return accepted;
}
