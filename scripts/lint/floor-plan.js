// The ESLint rule behind the floor plan (the table is in eslint.config.js): every import, export-from and import()
// of a relative path that leaves its folder must go to a folder the table lets the importing folder use. A file's
// folder is main/<name> for the engine, else its top folder (contract, renderer, app). Files elsewhere (test/,
// bench/, scripts/, bin/) may import anything, but no folder in the table may import them. A failure reads
// "Bad layering: <from> may not import <to>: '<import>' in <file>." and lists what <from> may import.

import path from 'node:path';

/** The floor-plan folder of a path relative to the repository root, or null when it is not in a layered tree. */
function folderOf(rel, layered) {
  const parts = rel.split('/');
  if (parts[0] === 'main' && parts.length > 2) return `main/${parts[1]}`;
  return layered.has(parts[0]) ? parts[0] : null;
}

/** Throws when the table lets a folder reach itself again: layers only go down. */
function assertAcyclic(mayImport) {
  const state = new Map();
  const visit = (f, trail) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') throw new Error(`eslint.config.js: the floor plan has a cycle: ${[...trail, f].join(' → ')}`);
    state.set(f, 'open');
    for (const g of mayImport[f] ?? []) visit(g, [...trail, f]);
    state.set(f, 'done');
  };
  for (const f of Object.keys(mayImport)) visit(f, []);
}

/**
 * plan: { root, mayImport: { folder: [folders] }, typesOnly: { folder: [folders it may import only with `import type`] },
 * data: [top folders anything may read] }.
 */
export function floorPlanPlugin(plan) {
  const { root, mayImport, typesOnly = {}, data = [] } = plan;
  assertAcyclic(Object.fromEntries(Object.keys(mayImport).map((f) => [f, [...mayImport[f], ...(typesOnly[f] ?? [])]])));
  const layered = new Set(Object.keys(mayImport).map((f) => f.split('/')[0]));
  const dataFolders = new Set(data);
  const rel = (abs) => path.relative(root, abs).split(path.sep).join('/');

  const rule = {
    meta: {
      type: 'problem',
      docs: { description: 'Imports follow the floor plan in eslint.config.js: a folder imports only the folders below it.' },
      schema: [],
    },
    create(context) {
      const file = rel(context.filename);
      const from = folderOf(file, layered);
      if (from === null) return {};
      const allowed = mayImport[from];
      const check = (node, source, typeOnly) => {
        if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
        const target = rel(path.resolve(path.dirname(context.filename), source.value));
        const to = folderOf(target, layered) ?? target.split('/')[0];
        if (to === from || dataFolders.has(to)) return;
        if (allowed.includes(to) || (typeOnly && (typesOnly[from] ?? []).includes(to))) return;
        const onlyTypes = (typesOnly[from] ?? []).includes(to) ? ' except with `import type`' : '';
        const may = [...allowed, ...(typesOnly[from] ?? []).map((f) => `${f} (types)`)].join(', ') || 'nothing outside itself';
        context.report({ node, message: `Bad layering: ${from} may not import ${to}${onlyTypes}: '${source.value}' in ${file}. ${from} may import: ${may}.` });
      };
      const allTypes = (specifiers, kind) => specifiers.length > 0 && specifiers.every((s) => s[kind] === 'type');
      return {
        Program(node) {
          if (!allowed)
            context.report({
              node,
              message: `Bad layering: ${from} is not in the floor plan; add it to FLOOR_PLAN in eslint.config.js with what it may import.`,
            });
        },
        ImportDeclaration(node) {
          if (allowed) check(node, node.source, node.importKind === 'type' || allTypes(node.specifiers, 'importKind'));
        },
        ExportNamedDeclaration(node) {
          if (allowed && node.source) check(node, node.source, node.exportKind === 'type' || allTypes(node.specifiers, 'exportKind'));
        },
        ExportAllDeclaration(node) {
          if (allowed) check(node, node.source, node.exportKind === 'type');
        },
        ImportExpression(node) {
          if (allowed && node.source.type === 'Literal') check(node, node.source, false);
        },
      };
    },
  };
  return { meta: { name: 'floor-plan' }, rules: { 'floor-plan': rule } };
}
