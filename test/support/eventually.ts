/**
 * Waiting for what happens in the background (a delivery, a line of a process's output): `check`
 * is polled every 20 ms until it answers something other than undefined, null or false, which is
 * returned; past `timeoutMs` the wait fails, saying what it waited for.
 */
import assert from 'node:assert/strict';

export async function eventually<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<T> {
  // The monotonic clock: a test may have mocked Date.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    assert.ok(performance.now() < deadline, `timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
