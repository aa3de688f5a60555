// Provider sample payloads: example responses and notifications from each provider's public
// documentation. They are not the project's own work, so the repository holds no copy; they are
// read in place from the shared reference that sits beside the repository wherever tests run
// (CI included), `../shared/reference/provider-samples/`. The path is resolved from this file,
// not from the working directory, so a test finds them whichever folder it is started from.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY_ROOT = new URL('../../', import.meta.url);

/** Absolute path of the shared provider samples (`<repository>/../shared/reference/provider-samples`). */
export const PROVIDER_SAMPLES_DIR = fileURLToPath(
  new URL('../shared/reference/provider-samples/', REPOSITORY_ROOT),
);

function samplesDirectory(): string {
  if (!existsSync(PROVIDER_SAMPLES_DIR)) {
    throw new Error(
      `Provider samples not found: expected the shared reference at ${PROVIDER_SAMPLES_DIR} ` +
        '(../shared/reference/provider-samples beside the repository). Check out the shared ' +
        'reference next to the repository before running the normalizer tests and the fakes.',
    );
  }
  return PROVIDER_SAMPLES_DIR;
}

/** The raw text of `<name>.json` (e.g. `oura-daily_sleep`), for parsers that need the bytes. */
export function readProviderSampleText(name: string): string {
  const file = join(samplesDirectory(), `${name}.json`);
  if (!existsSync(file)) throw new Error(`Provider sample not found: ${file}`);
  return readFileSync(file, 'utf8');
}

/** `<name>.json` parsed; the caller states the shape it reads. */
export function readProviderSample<T = unknown>(name: string): T {
  return JSON.parse(readProviderSampleText(name)) as T;
}
