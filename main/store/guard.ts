// One place where every SQLite failure of a workspace database is turned into a store error: a Proxy over the
// better-sqlite3 handle (and the statements, transactions and iterators it hands out) passes each throw through
// `mapError`, so damage or a read-only file met by any query — the Store's, the experiment and exchange stores',
// a migration's, a sqlite-vec scan — reads the same, naming the file and what to do. It also runs `beforeClose`.

import type { Database, Statement } from 'better-sqlite3';

export interface GuardHooks {
  /** The error to throw for a failure; `sql` is the statement's text when a statement failed. */
  mapError(err: unknown, sql: string | undefined): unknown;
  /** Runs just before the handle closes (its failures are the hook's own). */
  beforeClose?(db: Database): void;
}

type Fn = (...args: unknown[]) => unknown;
const TRANSACTION_VARIANTS = ['deferred', 'immediate', 'exclusive'] as const;

/** `db`, with every method, statement, transaction and iterator passing its failures through `hooks.mapError`. */
export function guardDatabase(db: Database, hooks: GuardHooks): Database {
  const statementProto = Object.getPrototypeOf(db.prepare('SELECT 1')) as object;
  const guarded = new WeakMap<object, object>();

  const call = <T>(sql: string | undefined, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      throw hooks.mapError(err, sql);
    }
  };

  const guardIterator = (it: IterableIterator<unknown>, sql: string): IterableIterator<unknown> => ({
    next: () => call(sql, () => it.next()),
    return: (value?: unknown) => call(sql, () => it.return?.(value) ?? { done: true as const, value }),
    [Symbol.iterator]() {
      return this;
    },
  });

  const guardTransaction = (tx: Fn & Record<string, unknown>): Fn => {
    const run = ((...args: unknown[]) => call(undefined, () => tx(...args))) as Fn & Record<string, unknown>;
    for (const v of TRANSACTION_VARIANTS) {
      const variant = tx[v] as Fn | undefined;
      if (variant) run[v] = (...args: unknown[]) => call(undefined, () => variant(...args));
    }
    return run;
  };

  function guard<T extends object>(target: T, sql: string | undefined): T {
    const known = guarded.get(target);
    if (known) return known as T;
    const methods = new Map<PropertyKey, Fn>();
    const proxy = new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t) as unknown;
        if (typeof value !== 'function') return value;
        let method = methods.get(prop);
        if (!method) {
          method = (...args: unknown[]) => {
            if (prop === 'close' && t === db && db.open) hooks.beforeClose?.(db);
            const result = call(sql, () => (value as Fn).apply(t, args));
            if (result === t) return proxy;
            if (typeof result === 'object' && result !== null && Object.getPrototypeOf(result) === statementProto) {
              return guard(result, (result as Statement).source);
            }
            if (prop === 'transaction') return guardTransaction(result as Fn & Record<string, unknown>);
            if (prop === 'iterate') return guardIterator(result as IterableIterator<unknown>, sql ?? '');
            return result;
          };
          methods.set(prop, method);
        }
        return method;
      },
    });
    guarded.set(target, proxy);
    return proxy;
  }

  return guard(db, undefined);
}
