// The engine check that counts, in place of npm's. npm compares every dependency's `engines.node`
// with the Node npm itself runs on; tributary's code runs on the Node its npm scripts run on (the
// `node` devDependency, first on PATH in every npm script and `npx tributary`). On an older
// machine Node, npm's check printed ~70 EBADENGINE warnings of five lines each, all beside the
// point, so .npmrc turns npm's warnings off (`loglevel=error`). This report, run by the root
// `postinstall` (scripts/check-engines.js), says in one line what that list meant, and names every
// package that refuses the Node that runs it: the mismatch that would matter.
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A package's (or, `project`, tributary's own) `engines.node`. */
export type EngineWant = { name: string; range: string; project?: boolean };

export type EngineFacts = {
  /** The Node npm ran on (from npm's user agent), e.g. `v20.20.2`. */
  npmNode: string;
  /** The Node npm scripts run on: the one running this report. */
  runtimeNode: string;
  /** Where that Node is, as the user would type it. */
  runtimePath: string;
  /** The project and every installed package that names `engines.node`. */
  wants: EngineWant[];
  satisfies: (version: string, range: string) => boolean;
};

const SHOWN = 5;

function named(refusing: EngineWant[]): string {
  const shown = refusing.slice(0, SHOWN).map(({ name, range }) => `${name} (node ${range})`);
  const more = refusing.length - shown.length;
  return shown.join(', ') + (more > 0 ? `, and ${more} more` : '');
}

/**
 * What to say after an install, one line each, nothing when there is nothing to say: a line
 * explaining the warnings npm would have printed (npm's Node is older than some packages want,
 * but the Node that runs them satisfies them), and a line naming each real mismatch (a package,
 * or the project, that refuses the Node that runs it).
 */
export function engineReport(facts: EngineFacts): { notes: string[]; mismatches: string[] } {
  const { npmNode, runtimeNode, runtimePath, wants, satisfies } = facts;
  const refuseRuntime = wants.filter(({ range }) => !satisfies(runtimeNode, range));
  // npm does not compare the project's own engines (package.json has devEngines).
  const refuseNpmOnly = wants.filter(
    ({ range, project }) => !project && !satisfies(npmNode, range) && satisfies(runtimeNode, range),
  );
  const notes: string[] = [];
  if (refuseNpmOnly.length > 0)
    notes.push(
      `tributary: npm ran on Node ${npmNode}, older than ${refuseNpmOnly.length} ` +
        `${refuseNpmOnly.length === 1 ? 'dependency asks' : 'dependencies ask'} for (npm's EBADENGINE ` +
        `warnings are off in .npmrc); npm scripts and npx tributary run ` +
        `${refuseNpmOnly.length === 1 ? 'it' : 'them'} on Node ${runtimeNode} (${runtimePath}), ` +
        `which ${refuseNpmOnly.length === 1 ? 'it accepts' : 'they accept'}.`,
    );
  const mismatches: string[] = [];
  if (refuseRuntime.length > 0)
    mismatches.push(
      `tributary: ${refuseRuntime.length} ${refuseRuntime.length === 1 ? 'package refuses' : 'packages refuse'} ` +
        `Node ${runtimeNode} (${runtimePath}), which runs ${refuseRuntime.length === 1 ? 'it' : 'them'}: ` +
        `${named(refuseRuntime)}. Raise the pinned Node (the \`node\` devDependency and .nvmrc) ` +
        `or hold those packages back.`,
    );
  return { notes, mismatches };
}

type LockEntry = {
  version?: string;
  engines?: { node?: string } | string[];
  link?: boolean;
  hasInstallScript?: boolean;
};

/**
 * The other warning `loglevel=error` hides: npm 11 runs no dependency's install script unless
 * package.json's `allowScripts` decides it, and says so only as a warning. One line names the
 * installed packages with an install script that `allowScripts` does not mention, so a new one
 * is not missed (`npm install-scripts ls` reviews them).
 */
export function undecidedInstallScripts(
  installed: { name: string; hasInstallScript: boolean }[],
  allowScripts: Record<string, boolean>,
): string[] {
  const decided = new Set(Object.keys(allowScripts).map((key) => key.replace(/(.)@[^@/]*$/, '$1')));
  const undecided = installed.filter(({ name, hasInstallScript }) => hasInstallScript && !decided.has(name));
  if (undecided.length === 0) return [];
  const names = undecided.map(({ name }) => name).join(', ');
  return [
    `tributary: npm did not run the install scripts of ${names}: package.json's allowScripts ` +
      'does not decide them (review with `npm install-scripts ls`, then allow or decline each there).',
  ];
}

/** The installed packages (by name) and whether each has an install script, from npm's hidden lockfile. */
function installedScripts(root: URL): { name: string; hasInstallScript: boolean }[] {
  const lock = JSON.parse(readFileSync(new URL('node_modules/.package-lock.json', root), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.includes('node_modules/') && !entry.link)
    .map(([path, entry]) => ({
      name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length),
      hasInstallScript: entry.hasInstallScript === true,
    }));
}

/** The `engines.node` of the project and of every package npm installed (its hidden lockfile). */
export function installedWants(root: URL): EngineWant[] {
  const project = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    name: string;
    engines?: { node?: string };
  };
  const lock = JSON.parse(readFileSync(new URL('node_modules/.package-lock.json', root), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const wants: EngineWant[] = [];
  if (project.engines?.node) wants.push({ name: project.name, range: project.engines.node, project: true });
  for (const [path, entry] of Object.entries(lock.packages)) {
    // Old manifests wrote engines as an array of strings, which npm ignores too.
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!range || entry.link) continue;
    // `node_modules/a/node_modules/@b/c` is @b/c; a workspace (`packages/client`) keeps its path.
    const at = path.lastIndexOf('node_modules/');
    const name = at < 0 ? path : path.slice(at + 'node_modules/'.length);
    wants.push({ name: entry.version ? `${name}@${entry.version}` : name, range });
  }
  return wants;
}

/** Prints the report for the install in `root`, as the root `postinstall` does. */
export function reportInstall(root: URL, env: NodeJS.ProcessEnv = process.env): void {
  // npm's user agent, e.g. `npm/11.6.2 node/v20.20.2 linux x64 workspaces/false`.
  const npmNode = /\bnode\/(v\d+\.\d+\.\d+)/.exec(env.npm_config_user_agent ?? '')?.[1] ?? process.version;
  const pinned = new URL('node_modules/.bin/node', root).pathname;
  const runtimePath = process.execPath === realpath(pinned) ? 'node_modules/.bin/node' : process.execPath;
  const satisfies = createRequire(root)('semver/functions/satisfies') as EngineFacts['satisfies'];
  const { notes, mismatches } = engineReport({
    npmNode,
    runtimeNode: process.version,
    runtimePath,
    wants: installedWants(root),
    satisfies,
  });
  for (const line of notes) console.log(line);
  for (const line of mismatches) console.error(line);
  const project = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
    allowScripts?: Record<string, boolean>;
  };
  for (const line of undecidedInstallScripts(installedScripts(root), project.allowScripts ?? {}))
    console.error(line);
}

function realpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}
