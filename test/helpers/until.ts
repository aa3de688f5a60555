// The one way a test awaits a state: read it again and again until it is what the test waits for.
// The deadline is generous and only there so a broken run ends with a message instead of hanging;
// it is never a claim about speed (no timing assertions). On failure the message says what was
// awaited and the last value read, which is usually what explains the failure.

/** How long a test waits for a state unless it says otherwise: long enough for a loaded CI machine. */
export const DEFAULT_UNTIL_TIMEOUT_MS = 60_000;

export interface UntilOptions<T> {
  /** When the value read is the awaited one; by default when it is truthy. */
  done?: (value: T) => boolean;
  /** Overall deadline; defaults to DEFAULT_UNTIL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Pause between reads. */
  intervalMs?: number;
  /** How the last value appears in the failure message (JSON by default). */
  show?: (last: T) => string | Promise<string>;
  /** Runs before each pause, e.g. to wake a queue so the awaited job is fetched now. */
  betweenReads?: () => void | Promise<void>;
}

/**
 * Reads `read()` until `options.done(value)` holds (by default: until the value is truthy) and
 * returns that value; fails after the deadline naming `what` and the last value seen. An error
 * thrown by `read` ends the wait at once, as it would without polling.
 */
export async function until<T>(
  what: string,
  read: () => T | Promise<T>,
  options: UntilOptions<T> = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_UNTIL_TIMEOUT_MS;
  const done = options.done ?? Boolean;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await read();
    if (done(last)) return last;
    if (Date.now() > deadline) {
      const seen = options.show ? await options.show(last) : describe(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`);
    }
    await options.betweenReads?.();
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

function describe(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 2000 ? `${text.slice(0, 2000)}… (${text.length} characters)` : text;
}

/** `until` for reads that answer `undefined` until the awaited value is there; returns that value. */
export async function untilDefined<T>(
  what: string,
  read: () => T | undefined | Promise<T | undefined>,
  options: Omit<UntilOptions<T | undefined>, 'done'> = {},
): Promise<T> {
  return (await until(what, read, { ...options, done: (value) => value !== undefined })) as T;
}
