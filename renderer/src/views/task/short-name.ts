// A dotted code name (`tests.test_filesize.TestFilesize.test_binary_prefix`) shortened for a narrow column so that
// it stays recognisable: the last segment — the function or method itself — is never cut; a short first segment
// (the top package) is kept, then the segments before the last from the right while they fit (the enclosing class
// first), with "…" for the middle left out. The full name goes in the element's title.

export interface ShortName {
  /** Everything before the last segment, shortened, ending in "." (empty for a name without dots). */
  lead: string;
  /** The last dotted segment, whole; for a name that is not a dotted code name, the whole name. */
  last: string;
  /** Whether anything was left out. */
  shortened: boolean;
}

/** Whether `name` is a dotted code name (no spaces, at least one dot between two non-empty segments). */
const isDotted = (name: string) => !/\s/.test(name) && /^[^.]+(\.[^.]+)+$/.test(name);

/**
 * Shortens `name` to about `max` characters (more only when its last segment alone is longer):
 * `tests.test_filesize.TestFilesize.test_binary_prefix` at 40 → lead `tests…TestFilesize.`, last `test_binary_prefix`;
 * `pkg.formatting.filesize_helpers.BINARY_PREFIXES` at 44 → `pkg…filesize_helpers.` and `BINARY_PREFIXES`.
 */
export function shortName(name: string, max = 44): ShortName {
  if (!isDotted(name)) return { lead: '', last: name, shortened: false };
  const parts = name.split('.');
  const last = parts.pop()!;
  if (name.length <= max) return { lead: parts.join('.') + '.', last, shortened: false };
  // Room for what comes before the last segment, besides the "…".
  let room = max - last.length - 1;
  // The first segment (the top package) when it is short: it says where the name comes from.
  let head = parts[0]!.length <= Math.min(16, room / 2) ? parts.shift()! : '';
  room -= head.length;
  // Segments kept whole from the right (the enclosing class first) while they fit.
  let kept = '';
  while (parts.length && parts[parts.length - 1]!.length + 1 <= room) {
    const seg = parts.pop()!;
    kept = `${seg}.${kept}`;
    room -= seg.length + 1;
  }
  // Nothing kept at the start: the first segment's first characters, when there is room for a few.
  if (!head && parts.length && room >= 3) head = parts[0]!.slice(0, room);
  return { lead: `${head}…${kept}`, last, shortened: true };
}
