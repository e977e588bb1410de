// Work done a slice at a time between other work, such as paging derived data into memory after a first task that
// read only what it needed. Each slice runs on its own turn of the event loop, so calls and tasks in between wait
// for one slice at most; the pending slice does not keep a process alive that has nothing else to do.

let running = 0;
let waiters: (() => void)[] = [];

function finished(): void {
  if (--running > 0) return;
  const w = waiters;
  waiters = [];
  for (const resolve of w) resolve();
}

/**
 * Calls `slice` on later turns of the event loop until it returns true (done) or throws (the work stops there:
 * background work only saves time later, and whoever needs its result does that work itself when it is missing).
 */
export function inBackground(slice: () => boolean): void {
  running++;
  const next = () => {
    let done: boolean;
    try {
      done = slice();
    } catch {
      done = true;
    }
    if (done) finished();
    else later(next);
  };
  later(next);
}

/**
 * An unref'd timer, not an unref'd setImmediate: Node runs immediates in the check phase, and only ref'd ones keep the
 * poll phase from blocking, so an unref'd immediate waits for the next unrelated event (a process waiting on nothing
 * else, such as one in backgroundSettled(), waited for ever). A timer wakes the poll phase itself.
 */
function later(fn: () => void): void {
  setTimeout(fn, 0).unref();
}

/** Resolves once no background work is pending (at once when none is): what a benchmark of the steady state waits for. */
export function backgroundSettled(): Promise<void> {
  if (running === 0) return Promise.resolve();
  // The slices do not hold the process; whoever waits for them does, until they are done.
  const hold = setInterval(() => {}, 1 << 30);
  return new Promise((resolve) =>
    waiters.push(() => {
      clearInterval(hold);
      resolve();
    }),
  );
}
