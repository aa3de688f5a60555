import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE = join(fileURLToPath(new URL('../../', import.meta.url)), 'node_modules/.bin/node');

/**
 * Runs `script` with `args` in a child whose V8 heap is capped at `heapMb`, so that a memory
 * regression fails the test that runs it instead of the machine. Resolves with its exit code
 * and everything it printed.
 */
export function runUnderHeapLimit(
  script: string,
  heapMb: number,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [`--max-old-space-size=${heapMb}`, script, ...args], {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (exitCode) => resolve({ code: exitCode, stdout, stderr }));
  });
}
