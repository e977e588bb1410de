// What the Import view hands to the Experiment view's "Published sample sets" box when the analyst follows
// "Compute Pass@k": the set just imported, taken once by the box when it shows.

let pending: string | null = null;

export function handOffPassK(path: string): void {
  pending = path;
}

/** The set handed over (null when none is waiting); taking it clears it. */
export function takePassK(): string | null {
  const p = pending;
  pending = null;
  return p;
}
