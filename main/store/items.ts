// Reading retrieved items (units, chunks, API entries) with what retrieval, uncertainty and prompts need.

import type { Param } from '../model/code.ts';
import type { ItemKind, Store } from './store.ts';

export interface Item {
  kind: ItemKind;
  id: number;
  /** Dedup key: the underlying unit for units and API entries of a unit, else the item itself. */
  key: string;
  file: string;
  module: string;
  startLine: number;
  endLine: number;
  title: string;
  text: string;
  name: string;
  qualname: string;
  owner: string | null;
  signature: string;
  /** Docstring (units), description (API) or '' (chunks). */
  description: string;
  descriptionSource: 'docstring' | 'signature' | 'llm' | 'none';
  params: Param[];
  /** For API entries: their unit; for units: themselves. */
  unitId: number | null;
  /** unit kind, API kind, or chunk kind. */
  subkind: string;
}

const chunkSql = `SELECT c.id, c.kind, c.title, c.owner, c.text, c.start_line, c.end_line, f.path, f.module
  FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))`;
const unitSql = `SELECT u.id, u.kind, u.name, u.qualname, u.parent_qualname, u.signature, u.params, u.docstring, u.body,
  u.start_line, u.end_line, f.path, f.module FROM units u JOIN files f ON f.id = u.file_id WHERE u.id IN (SELECT value FROM json_each(?))`;
const apiSql = `SELECT a.id, a.kind, a.name, a.qualname, a.module, a.owner, a.signature, a.description, a.description_source, a.text,
  a.unit_id, f.path, coalesce(u.start_line, a.start_line) AS start_line, coalesce(u.end_line, a.end_line) AS end_line, coalesce(u.params, '[]') AS params
  FROM api_entries a JOIN files f ON f.id = a.file_id LEFT JOIN units u ON u.id = a.unit_id WHERE a.id IN (SELECT value FROM json_each(?))`;

/** Where an item lies: the columns every item query returns under the same names. */
function where(r: Record<string, unknown>): Pick<Item, 'file' | 'module' | 'startLine' | 'endLine'> {
  return { file: r.path as string, module: r.module as string, startLine: r.start_line as number, endLine: r.end_line as number };
}

export function fetchItems(store: Store, kind: ItemKind, ids: number[]): Map<number, Item> {
  const out = new Map<number, Item>();
  if (!ids.length) return out;
  const arg = JSON.stringify(ids);
  if (kind === 'chunk') {
    for (const r of store.prepared(chunkSql).all(arg) as Record<string, unknown>[]) {
      out.set(r.id as number, {
        kind,
        id: r.id as number,
        key: `chunk:${r.id}`,
        ...where(r),
        title: r.title as string,
        text: r.text as string,
        name: (r.owner as string) || (r.module as string),
        qualname: r.owner as string,
        owner: (r.owner as string) || null,
        signature: '',
        description: '',
        descriptionSource: 'none',
        params: [],
        unitId: null,
        subkind: r.kind as string,
      });
    }
  } else if (kind === 'unit') {
    for (const r of store.prepared(unitSql).all(arg) as Record<string, unknown>[]) {
      const doc = r.docstring as string | null;
      out.set(r.id as number, {
        kind,
        id: r.id as number,
        key: `unit:${r.id}`,
        ...where(r),
        title: `${r.module}.${r.qualname}`,
        text: r.body as string,
        name: r.name as string,
        qualname: r.qualname as string,
        owner: (r.parent_qualname as string | null) ?? null,
        signature: r.signature as string,
        description: doc ?? '',
        descriptionSource: doc ? 'docstring' : 'none',
        params: JSON.parse(r.params as string) as Param[],
        unitId: r.id as number,
        subkind: r.kind as string,
      });
    }
  } else {
    for (const r of store.prepared(apiSql).all(arg) as Record<string, unknown>[]) {
      const unitId = (r.unit_id as number | null) ?? null;
      out.set(r.id as number, {
        kind,
        id: r.id as number,
        key: unitId != null ? `unit:${unitId}` : `api:${r.id}`,
        ...where(r),
        title: `${r.module}.${r.qualname}`,
        text: r.text as string,
        name: r.name as string,
        qualname: r.qualname as string,
        owner: (r.owner as string | null) ?? null,
        signature: r.signature as string,
        description: r.description as string,
        descriptionSource: r.description_source as Item['descriptionSource'],
        params: JSON.parse(r.params as string) as Param[],
        unitId,
        subkind: r.kind as string,
      });
    }
  }
  return out;
}

/** The module of each chunk (what ranking repository context needs before the full items are read). */
export function chunkModules(store: Store, ids: number[]): Map<number, string> {
  if (!ids.length) return new Map();
  const rows = store
    .prepared('SELECT c.id, f.module FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(ids)) as { id: number; module: string }[];
  return new Map(rows.map((r) => [r.id, r.module]));
}
