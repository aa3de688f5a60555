import { NodeFS } from '@electric-sql/pglite/nodefs';

type PgliteInit = Awaited<ReturnType<NodeFS['init']>>;
type EmscriptenFs = { chmod(path: unknown, mode: number, dontFollow?: boolean): void };

const GROUP_AND_OTHERS = 0o077;

/**
 * PGlite's files on disk, readable and writable by the service's user only. PostgreSQL compiled
 * to WASM runs on Emscripten's file system, which sets every mode it creates a file with
 * explicitly (the files of a new database are unpacked 0666, `fopen`ed ones come out 0644):
 * the process umask never applies. Every mode it sets goes through `FS.chmod`, so group and
 * other permissions are taken off there, before any file is written.
 */
export class OwnerOnlyNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS['init']>): Promise<PgliteInit> {
    const { emscriptenOpts } = await super.init(...args);
    const restrictModes = (module: { FS: unknown }) => {
      const fs = module.FS as EmscriptenFs;
      const chmod = fs.chmod.bind(fs);
      fs.chmod = (path, mode, dontFollow) => chmod(path, mode & ~GROUP_AND_OTHERS, dontFollow);
    };
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [restrictModes, ...(emscriptenOpts.preRun ?? [])] },
    };
  }
}
