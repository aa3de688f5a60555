// Where the third-party reference material lives: provider samples from public documentation,
// the vendor's OpenAPI documents, real exports and device files. None of it is the project's
// own work, so the repository holds no copy; it is read in place from `shared/` beside the
// repository (CI always has it), or from SHARED_REFERENCE_DIR when set (a worktree whose parent
// has no `shared`). A fresh clone has neither: every test that reads it asks `missingShared`
// first and skips with the message naming what is missing; core tests use fixtures the
// project writes itself (test/fakes, test/helpers). Paths are resolved from this file, not the
// working directory, so a test finds them whichever folder it is started from.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The shared reference directory (it may not exist). */
export const SHARED_DIR = process.env.SHARED_REFERENCE_DIR?.trim()
  ? resolve(process.env.SHARED_REFERENCE_DIR.trim())
  : resolve(REPOSITORY_ROOT, '..', 'shared');

/** Absolute path of `relative` (e.g. `reference/provider-samples`) inside the shared reference. */
export const sharedPath = (relative: string): string => join(SHARED_DIR, relative);

/**
 * Why a test that reads these shared paths cannot run, or undefined when they all exist. Pass
 * it as a test's `skip` option: node:test prints the message beside the skipped test.
 */
export function missingShared(...relatives: string[]): string | undefined {
  const missing = relatives.filter((relative) => !existsSync(sharedPath(relative)));
  if (missing.length === 0) return undefined;
  return (
    `skipped: ${missing.map((relative) => sharedPath(relative)).join(', ')} not found ` +
    '(third-party reference material kept beside the repository in ../shared, or at SHARED_REFERENCE_DIR)'
  );
}

/** The bytes of a shared file; an error naming the path when it is missing. */
export function readShared(relative: string): Buffer {
  const path = sharedPath(relative);
  if (!existsSync(path)) throw new Error(`Shared reference file not found: ${path}`);
  return readFileSync(path);
}

/**
 * A suite that reads shared reference material: `describe(name, fn)`, or, when `skip` says why it
 * cannot run, one skipped test of that name. node:test leaves skipped suites out of its summary
 * (`skipped` counts tests), so a fresh clone's run would print thirty skipped suites and report
 * "skipped 2"; as tests they are counted.
 */
export function describeWithShared(name: string, skip: string | false | undefined, fn: () => void): void {
  if (skip) test(name, { skip }, () => {});
  else describe(name, fn);
}
