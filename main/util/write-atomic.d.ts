// Types of write-atomic.js (plain JavaScript, so that the launcher loads it without compiling anything).

/** Writes `file` through a temporary sibling and a rename; `mode` applies to a new file. */
export function writeAtomic(file: string, text: string | Uint8Array, mode?: number): void;
