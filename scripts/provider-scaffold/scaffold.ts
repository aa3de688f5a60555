// Writes a new provider: its folder, its fake and its path test, then the registry index.
// Refuses (before writing anything) when the id or any of the paths is taken.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { formatSource } from './format.ts';
import { providerEntries, writeIndex } from './index-file.ts';
import { providerNames } from './names.ts';
import {
  connectorFile,
  dailyNormalizerFile,
  dataSourceFile,
  mappingFile,
  providerFile,
} from './provider-files.ts';
import { fakeFile, pathTestFile } from './test-files.ts';

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Creates the provider's files; returns their paths relative to `root`, index included. */
export async function scaffoldProvider(root: string, id: string, folder: string): Promise<string[]> {
  const names = providerNames(id, folder);
  const taken = (await providerEntries(root)).find((entry) => entry.id === id);
  if (taken) throw new Error(`the id ${id} is already declared by src/providers/${taken.folder}/`);
  const dir = `src/providers/${folder}`;
  const files: [string, string][] = [
    [`${dir}/provider.ts`, providerFile(names)],
    [`${dir}/connector.ts`, connectorFile(names)],
    [`${dir}/data-source.ts`, dataSourceFile(names)],
    [`${dir}/normalize/daily.ts`, dailyNormalizerFile(names)],
    [`${dir}/MAPPING.md`, mappingFile(names)],
    [`test/fakes/${folder}.ts`, fakeFile(names)],
    [`test/integration/connector-${folder}.test.ts`, pathTestFile(names)],
  ];
  for (const path of [dir, ...files.slice(5).map(([path]) => path)]) {
    if (await exists(join(root, path))) throw new Error(`${path} already exists`);
  }
  for (const [path, source] of files) {
    const target = join(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, await formatSource(target, source));
  }
  await writeIndex(root);
  return [...files.map(([path]) => path), 'src/providers/index.ts'];
}
