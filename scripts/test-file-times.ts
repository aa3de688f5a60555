// A node:test reporter (scripts/test.ts adds it when TEST_FILE_TIMES is set): one line per test
// file, slowest first, with the summed duration of its top-level tests and how many failed, so
// that a run shows which files dominate it and which failed.
type Event = { type: string; data: { file?: string; nesting?: number; details?: { duration_ms?: number } } };

export default async function* fileTimes(source: AsyncIterable<Event>): AsyncGenerator<string> {
  const files = new Map<string, { ms: number; tests: number; failed: number }>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    const entry = files.get(file) ?? { ms: 0, tests: 0, failed: 0 };
    entry.ms += details?.duration_ms ?? 0;
    entry.tests += 1;
    if (event.type === 'test:fail') entry.failed += 1;
    files.set(file, entry);
  }
  const root = `${process.cwd()}/`;
  for (const [file, entry] of [...files].sort((a, b) => b[1].ms - a[1].ms))
    yield `${(entry.ms / 1000).toFixed(1).padStart(8)} s  ${entry.failed ? `FAILED ${entry.failed}/${entry.tests}` : `ok ${entry.tests}`}  ${file.replace(root, '')}\n`;
}
