import { UsageError } from './output.ts';

/**
 * Option values the command line can judge itself, before it opens the store: a value of the
 * wrong shape is a usage error (exit 2), like a missing option. Whether a well-formed value is
 * allowed (a production webhook's https, a limit's range) is still the service's to say; its
 * refusal exits 1.
 */

/** An absolute http(s) URL, e.g. a webhook's `--url`. */
export function httpUrlOption(name: string, value: string, usage: string): string {
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw new UsageError(`--${name} must be an absolute http(s) URL, got ${JSON.stringify(value)}\n${usage}`);
  return value;
}

/** A whole number of at least `min`, e.g. `--limit`. */
export function wholeNumberOption(name: string, value: string, usage: string, min = 1): number {
  const number = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min)
    throw new UsageError(
      `--${name} must be a whole number of at least ${min}, got ${JSON.stringify(value)}\n${usage}`,
    );
  return number;
}
