import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  type ChildEnvironment,
  childEnvironment,
  startService,
  type RunningService,
} from '../helpers/child-service.ts';
import { until } from '../helpers/until.ts';

/**
 * The README's walkthrough, run as written: a server started as `npm start` starts it, then every
 * fenced sh/bash block of README.md in order, in one bash from the repository's root, under the
 * conventions the README states in its comment (`walkthrough: skip`, `walkthrough: background`).
 * The only things the test adds are the server's DATA_DIR and PORT in the environment (the
 * blocks read them as a reader's shell would read ./.env) and the waiting for a background
 * block's "Ready".
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const README = join(ROOT, 'README.md');

export type WalkthroughBlock = { code: string; mode: 'run' | 'skip' | 'background'; line: number };

/** The fenced sh/bash blocks of a Markdown text and how each is marked. */
export function walkthroughBlocks(markdown: string): WalkthroughBlock[] {
  const blocks: WalkthroughBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(sh|bash)\s*$/.test(lines[i]!)) continue;
    const marker = /^<!-- walkthrough: (skip|background) -->$/.exec(lines[i - 1] ?? '');
    const start = i;
    const code: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) code.push(lines[i]!);
    blocks.push({
      code: code.join('\n'),
      mode: (marker?.[1] as 'skip' | 'background') ?? 'run',
      line: start + 1,
    });
  }
  return blocks;
}

/** One bash script: the blocks to run, a background block started in its own process group. */
function script(blocks: WalkthroughBlock[], backgroundLog: string, backgroundPid: string): string {
  const parts = ['set -euo pipefail', `cd ${JSON.stringify(ROOT)}`];
  for (const block of blocks) {
    if (block.mode === 'skip') continue;
    parts.push(`# README.md line ${block.line}`);
    if (block.mode === 'run') {
      parts.push(block.code);
      continue;
    }
    // A second terminal: its own process group (so the test can stop all of it), its output kept.
    parts.push(
      `setsid bash -c ${shellQuote(block.code)} > ${shellQuote(backgroundLog)} 2>&1 &`,
      `echo $! > ${shellQuote(backgroundPid)}`,
      `for _ in $(seq 600); do grep -q Ready ${shellQuote(backgroundLog)} && break; kill -0 $! 2>/dev/null || break; sleep 0.1; done`,
      `grep -q Ready ${shellQuote(backgroundLog)} || { echo "background block (README.md line ${block.line}) not ready:"; cat ${shellQuote(backgroundLog)}; exit 1; }`,
    );
  }
  return `${parts.join('\n')}\n`;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The tools the walkthrough's shell uses; a machine without one skips, saying which. */
const missingTools = ['bash', 'curl', 'setsid', 'npx'].filter((tool) => {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
});

describe(
  'the README walkthrough',
  { skip: missingTools.length ? `needs ${missingTools.join(', ')} on PATH` : false },
  () => {
    let environment: ChildEnvironment;
    let server: RunningService;
    let scratch: string;
    let backgroundPid: string;
    before(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'tributary-walkthrough-'));
      backgroundPid = join(scratch, 'listen.pid');
      // Embedded storage, as on a fresh clone (the walkthrough reads the sandbox credentials file).
      environment = await childEnvironment({ DATABASE_URL: '', LOG_LEVEL: 'warn' });
      server = await startService(environment.env);
    });
    after(async () => {
      const pid = existsSync(backgroundPid) ? Number(readFileSync(backgroundPid, 'utf8').trim() || 0) : 0;
      if (pid > 0) {
        try {
          process.kill(-pid, 'SIGINT');
        } catch {
          // already gone
        }
      }
      await server?.stop('SIGTERM');
      await environment?.cleanup();
      rmSync(scratch, { recursive: true, force: true });
    });

    test('the blocks are marked as the README says', () => {
      const blocks = walkthroughBlocks(readFileSync(README, 'utf8'));
      const quickStart = blocks[0]!;
      assert.equal(quickStart.mode, 'skip');
      assert.deepEqual(
        quickStart.code
          .split('\n')
          .map((line) => line.replace(/\s+#.*$/, '').trim())
          .filter(Boolean),
        ['npm ci && npm start', 'npm test'],
        'the quick start is exactly two commands',
      );
      assert.equal(blocks.filter((block) => block.mode === 'background').length, 1);
      assert.ok(blocks.filter((block) => block.mode === 'run').length >= 4);
    });

    test('runs as written against a started server, and the listener verifies what arrives', async () => {
      const blocks = walkthroughBlocks(readFileSync(README, 'utf8'));
      const backgroundLog = join(scratch, 'listen.log');
      const file = join(scratch, 'walkthrough.sh');
      writeFileSync(file, script(blocks, backgroundLog, backgroundPid));
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'bash',
          [file],
          { env: environment.env, cwd: ROOT, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      });
      assert.equal(result.code, 0, `the walkthrough failed:\n${result.stdout}\n${result.stderr}`);
      assert.match(result.stdout, /"session_id"|"url"/, 'the widget session');
      assert.match(result.stdout, /connected user \S+/);
      assert.match(result.stdout, /"type":\s*"activity"|"data":/, 'the workouts in the response');

      const listened = await until(
        'the listener to print the test event and the workouts, verified',
        () => {
          const log = readFileSync(backgroundLog, 'utf8');
          return /healthcheck {2}\S+ {2}verified/.test(log) && /activity {2}\S+ {2}verified/.test(log)
            ? log
            : '';
        },
        { show: () => readFileSync(backgroundLog, 'utf8') },
      );
      assert.doesNotMatch(listened, /NOT VERIFIED/);
    });
  },
);
