// Opening the store for a command that only reads (status, runs, report, compare). Apart from kit.ts, which
// main.ts loads for `--help`, so that help never loads the database driver.

import { Store } from '../../store/store.ts';
import { dbPathOf } from './kit.ts';

/**
 * The database of a command that only reads (status, runs, report, compare), opened read-only: it works on a read-only file
 * or in a read-only folder, creates nothing when the file does not exist yet, and never migrates an older schema.
 */
export function openReadOnlyStore(values: Record<string, unknown>): Store {
  return Store.open(dbPathOf(values), { readonly: true });
}
