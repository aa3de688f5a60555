// Provider sample payloads: example responses and notifications from each provider's public
// documentation, read in place from the shared reference (`reference/provider-samples/`, see
// shared-reference.ts). A test that reads them passes `skip: missingProviderSamples()`.
import { join } from 'node:path';
import { missingShared, readShared, sharedPath } from './shared-reference.ts';

const SAMPLES = 'reference/provider-samples';

/** Absolute path of the shared provider samples. */
export const PROVIDER_SAMPLES_DIR = sharedPath(SAMPLES);

/** The skip message when the provider samples (or the named ones) are absent, else undefined. */
export const missingProviderSamples = (...names: string[]): string | undefined =>
  missingShared(SAMPLES, ...names.map((name) => join(SAMPLES, `${name}.json`)));

/** The raw text of `<name>.json` (e.g. `oura-daily_sleep`), for parsers that need the bytes. */
export function readProviderSampleText(name: string): string {
  return readShared(join(SAMPLES, `${name}.json`)).toString('utf8');
}

/** `<name>.json` parsed; the caller states the shape it reads. */
export function readProviderSample<T = unknown>(name: string): T {
  return JSON.parse(readProviderSampleText(name)) as T;
}

/**
 * Templates built from samples, read on first use rather than at import: a fake whose data comes
 * from the samples still starts (tokens, faults, notifications) where they are absent.
 */
export function lazySamples<T extends object>(load: () => T): T {
  let loaded: T | undefined;
  return new Proxy({} as T, {
    get: (_target, key) => Reflect.get((loaded ??= load()), key),
    has: (_target, key) => Reflect.has((loaded ??= load()), key),
  });
}
