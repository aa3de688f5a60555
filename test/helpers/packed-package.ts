// A package as it is published: its packed tarball installed offline into a scratch project, for
// the packages' packed tests (packages/*/test/packed.test.ts).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Run = { code: number; stdout: string; stderr: string };

/** Runs a command to its end; never rejects (the exit code says how it went). */
export function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * `npm pack` of the package in `packageDir` into `scratch`: the tarball's path and the files it
 * ships, sorted. Throws with npm's message when packing fails.
 */
export async function packTarball(
  packageDir: string,
  scratch: string,
): Promise<{ tarball: string; shipped: string[] }> {
  const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], packageDir);
  if (packed.code !== 0) throw new Error(`npm pack failed in ${packageDir}: ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  return { tarball: join(scratch, info!.filename), shipped: info!.files.map((file) => file.path).sort() };
}

/** A Node from `minMajor` up to (not including) 24 on this machine (a fresh machine often has one), or null. */
export function olderNode(minMajor: number): { path: string; major: number } | null {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const major = Number(execFileSync(path, ['-p', 'process.versions.node']).toString().split('.')[0]);
    if (major >= minMajor && major < 24) return { path, major };
  }
  return null;
}

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * What `tarball` depends on, and what that depends on, packed into `into` from the copies the
 * repository installed (root node_modules, as package-lock.json resolved them). Installed beside
 * the tarball they need no registry: `--offline` alone would need each package's registry
 * metadata in the npm cache, which `npm ci` (tarballs by integrity) never puts there.
 */
async function packDependencies(tarball: string, into: string): Promise<string[]> {
  const manifest = JSON.parse(execFileSync('tar', ['-xOzf', tarball, 'package/package.json']).toString()) as {
    dependencies?: Record<string, string>;
  };
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dependencies?: Record<string, string> }>;
  };
  const names = new Set<string>();
  const visit = (deps: Record<string, string> = {}) => {
    for (const name of Object.keys(deps)) {
      if (names.has(name)) continue;
      const entry = lock.packages[`node_modules/${name}`];
      if (!entry)
        throw new Error(`${name} (a dependency of ${tarball}) is not installed at the top of node_modules`);
      names.add(name);
      visit(entry.dependencies);
    }
  };
  visit(manifest.dependencies);
  if (names.size === 0) return [];
  const dirs = [...names].map((name) => join(ROOT, 'node_modules', name));
  const packed = await run(
    'npm',
    ['pack', ...dirs, '--json', '--ignore-scripts', '--pack-destination', into],
    ROOT,
  );
  if (packed.code !== 0) throw new Error(`npm pack of ${[...names].join(', ')} failed: ${packed.stderr}`);
  const infos = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string }[];
  return infos.map((info) => join(into, info.filename));
}

/**
 * A scratch project (`<scratch>/app`, an ES module) with the tarball installed offline and
 * `files` written beside it, plus a strict tsconfig that type-checks `typed.ts` against the
 * installed declarations. Returns the project's folder and npm's answer.
 */
export async function scratchProject(
  scratch: string,
  tarball: string,
  files: Record<string, string>,
): Promise<{ project: string; installed: Run }> {
  const project = join(scratch, 'app');
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  const dependencies = await packDependencies(tarball, scratch);
  const installed = await run(
    'npm',
    ['install', tarball, ...dependencies, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    project,
  );
  for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        types: [],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
      },
      files: ['typed.ts'],
    }),
  );
  return { project, installed };
}

/** The fenced TypeScript blocks (```ts) of a Markdown file, in order: a README's examples. */
export function typeScriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/**
 * Writes each block as a module of its own (`readme-<n>.ts`): a README example must compile
 * against the shipped declarations as a reader copies it (see typeCheck). `prelude` declares what
 * the examples take from their runtime (the scratch project has no @types/node).
 */
export function writeReadmeExamples(project: string, blocks: readonly string[], prelude: string): string[] {
  const files = blocks.map((_, i) => `readme-${i + 1}.ts`);
  blocks.forEach((block, i) => writeFileSync(join(project, files[i]!), `${prelude}\n${block}`));
  return files;
}

/**
 * Type-checks `files` of the scratch project in one program, with its strict tsconfig (the files
 * replaced): the DOM lib and the shipped declarations are read and checked once for all of them
 * rather than once per tsc run (each run cost seconds of CPU). Each caller judges its own files'
 * errors with errorsOf.
 */
export function typeCheck(node: string, tsc: string, project: string, files: string[]): Promise<Run> {
  writeFileSync(join(project, 'tsconfig.check.json'), JSON.stringify({ extends: './tsconfig.json', files }));
  return run(node, [tsc, '-p', 'tsconfig.check.json', '--pretty', 'false'], project);
}

/**
 * What of a typeCheck's outcome is about `mine`: its errors in those files, and any error that
 * names no file (a bad tsconfig, a missing declaration file); a failed run that shows no error of
 * another file counts too. Empty when `mine` type-checked.
 */
export function errorsOf(checked: Run, mine: string[]): string {
  const output = `${checked.stdout}${checked.stderr}`;
  const kept: string[] = [];
  let others = 0;
  let ours = true;
  for (const line of output.split('\n')) {
    if (!line.trim()) continue;
    // A message's further lines are indented under its first, which names the file.
    if (!/^\s/.test(line)) {
      const file = /^(.+?)\(\d+,\d+\): /.exec(line)?.[1];
      ours = file === undefined || mine.includes(file);
      if (!ours) others++;
    }
    if (ours) kept.push(line);
  }
  if (kept.length === 0 && checked.code !== 0 && others === 0) return `tsc exited ${checked.code}: ${output}`;
  return kept.join('\n');
}
