// Loaded into every test file's process by scripts/test-queue.ts: makes the process's stdout (the
// pipe its test results go to the runner by) blocking. The runner ends each file's process with
// node:test's forceExit, and on Linux a pipe is written asynchronously: process.exit() dropped
// whatever results were still queued, so a file's last tests went unreported and uncounted, at
// random and more under load (orders-domain, 90 tests, was reported as 90, 83, 88, 81 in eight
// runs; nodejs/node#64833). With blocking writes every result is in the pipe before the exit.
// Only the test file's own process: a service or CLI it starts inherits this import, and one
// whose stdout nobody reads must not block on a full pipe.
const stdout = process.stdout as typeof process.stdout & {
  _handle?: { setBlocking?: (on: boolean) => void };
};
if (process.argv[1]?.endsWith('.test.ts')) stdout._handle?.setBlocking?.(true);
