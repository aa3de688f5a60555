// The root `postinstall`: one line on the Node versions in play instead of npm's EBADENGINE list
// (scripts/engine-report.ts says why), and a clear line for each real mismatch.
// Plain JavaScript: npm runs it on the first `node` on PATH, the pinned Node 24 once `npm ci` has
// installed it (node_modules/.bin/node), else the machine's, which may be too old for TypeScript.
// It never fails the install (npm only warns about engines too): the launcher refuses to run.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const pinnedInstalled = existsSync(new URL('../node_modules/.bin/node', import.meta.url));
  console.error(
    `tributary: this runs on Node ${process.version} (${process.execPath}), and tributary ` +
      'and many of its dependencies need Node 24: ' +
      (pinnedInstalled
        ? 'the pinned Node 24 is node_modules/.bin/node, first on PATH in npm scripts and npx tributary.'
        : 'the pinned Node 24 (the `node` devDependency) was not installed (--omit=dev?). Run `npm ci` ' +
          'without it, or put Node 24 first on PATH (.nvmrc names it).'),
  );
} else {
  const { reportInstall } = await import('./engine-report.ts');
  reportInstall(new URL('../', import.meta.url));
}
