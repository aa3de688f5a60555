import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

/**
 * What a release promises about itself agrees everywhere it is said: the Node version the clone
 * pins (the `node` devDependency) and the one `.nvmrc` names for production machines, the licence
 * in package.json and LICENSE, the version and its changelog entry and release notes.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  version: string;
  license: string;
  engines: { node: string };
  devDependencies: Record<string, string>;
};

test('.nvmrc names the Node the devDependency pins, and it satisfies engines', () => {
  const pinned = pkg.devDependencies.node;
  assert.match(pinned ?? '', /^\d+\.\d+\.\d+$/, 'the node devDependency is an exact version');
  assert.equal(read('.nvmrc').trim(), pinned);
  const minimum = /^>=(\d+)$/.exec(pkg.engines.node)?.[1];
  assert.ok(
    minimum && Number(pinned!.split('.')[0]) >= Number(minimum),
    `${pinned} satisfies ${pkg.engines.node}`,
  );
});

test('LICENSE is the licence package.json names', () => {
  assert.equal(pkg.license, 'MIT');
  assert.match(read('LICENSE'), /^MIT License\n\nCopyright \(c\) \d{4} /);
});

test('the version has a changelog entry and release notes', () => {
  const changelog = read('CHANGELOG.md');
  assert.match(changelog, /^## \[Unreleased\]$/m);
  const entry = new RegExp(`^## \\[${pkg.version.replaceAll('.', '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm');
  assert.match(changelog, entry);
  assert.match(
    read(`docs/releases/${pkg.version}.md`),
    new RegExp(`^# Tributary ${pkg.version.replaceAll('.', '\\.')} `),
  );
});
