// TypeBox's compiler, loaded on the first compile instead of at start-up: `typebox/compile`
// brings TypeBox's whole value library with it (about 310 modules), and nothing on the way to
// /ready compiles a schema. Node loads the ES module synchronously here (require of an ES
// module), so callers keep compiling on first use without becoming async.
import { createRequire } from 'node:module';
import type * as TypeBoxCompiler from 'typebox/compile';

const require = createRequire(import.meta.url);
let compile: typeof TypeBoxCompiler.Compile | undefined;

/** TypeBox's `Compile`, the same function, its module loaded on the first call. */
export const compileSchema = ((...args: Parameters<typeof TypeBoxCompiler.Compile>) =>
  (compile ??= (require('typebox/compile') as typeof TypeBoxCompiler).Compile)(
    ...args,
  )) as typeof TypeBoxCompiler.Compile;
