// Loaded into each test file's process by scripts/test-queue.ts when TEST_FILE_TIMES is set, with
// TEST_FILE_CPU naming `<TEST_FILE_TIMES>.cpu`: when the file's process exits, appends its CPU
// time (user + system, its own and that of every child it waited for: services, CLIs, browsers;
// not PostgreSQL's) and its process's wall time there, one `<seconds> s cpu  <seconds> s wall
// <file>` line. CPU time is the figure that holds on a machine shared with other work, where wall
// times move with the load.
import { appendFileSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';

const cpuFile = process.env.TEST_FILE_CPU;
const file = process.argv[1];
// Only the test file's own process: a service it starts with the same options is counted in it.
if (cpuFile && file?.endsWith('.test.ts')) {
  process.on('exit', () => {
    try {
      // /proc/self/stat after the command name: utime, stime, cutime, cstime are fields 14–17.
      const stat = readFileSync('/proc/self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
      const wall = process.uptime();
      appendFileSync(
        cpuFile,
        `${(ticks / 100).toFixed(1).padStart(8)} s cpu ${wall.toFixed(1).padStart(8)} s wall  ${relative(process.cwd(), file)}\n`,
      );
    } catch {
      // Not Linux, or /proc unreadable: no CPU line for this file.
    }
  });
}
