/**
 * Waiting on a condition, bounded. A test never sleeps a fixed time for something to happen: it
 * polls what that changes, and fails — saying what it waited for — once the bound has passed. A
 * bound proves the mechanism (e.g. "far below the 60 s poll"), not the machine's speed.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; after `withinMs` it fails with "timed out waiting until <what>". Resolves with the time waited (ms). */
export async function until(check: () => boolean | Promise<boolean>, what: string, withinMs = 10_000): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > withinMs) throw new Error(`timed out waiting until ${what} (${withinMs} ms)`);
    await pause(10);
  }
  return performance.now() - start;
}

/** Runs `check` until it stops throwing, and resolves with its value; after `withinMs`, its last error is the failure. */
export async function eventually<T>(check: () => Promise<T>, withinMs = 5000): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (performance.now() > deadline) throw err;
      await pause(100);
    }
  }
}
