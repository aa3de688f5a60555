// Route validators and response serializers compiled on first use instead of at start-up.
//
// Fastify compiles an Ajv validator for every request part and a fast-json-stringify serializer
// for every response schema of every route while the app starts. Measured (bench/idle-memory.ts,
// PostgreSQL): that compilation is ~40 MB of the process's idle RSS (generated code plus
// compiler garbage that malloc keeps), for ~150 routes most processes never serve. Here each
// route part gets a thin function that compiles with Fastify's own default compilers (same
// Ajv options, same shared schemas, so the same answers and error messages) the first time it
// runs, then calls the compiled function directly.
import { createRequire } from 'node:module';

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown };
type RouteCompiler = (route: unknown) => Compiled;
type CompilerFactory = (externalSchemas: unknown, options: unknown) => RouteCompiler;

// Fastify's default compilers, resolved from Fastify itself (they are its dependencies, pinned
// by its version), so the behaviour is exactly what Fastify would have installed. They are
// `require`d on the first compilation, not at start-up: Ajv and fast-json-stringify are ~116
// modules (measured: ~40 ms of CPU and a few MB of idle RSS) that no start-up route needs (the
// probes serialize their own answers), and a process may serve for long before its first
// validated request.
const fastifyRequire = () => createRequire(import.meta.resolve('fastify'));

/**
 * One factory per kind for the whole process, made on first use: the default factory keeps a
 * pool of compilers (one Ajv instance per set of shared schemas and options), which every plugin
 * context then shares, as it does in Fastify.
 */
function requiredOnFirstUse(compilerPackage: string): CompilerFactory {
  let factory: CompilerFactory | undefined;
  return (externalSchemas, options) =>
    (factory ??= (fastifyRequire()(compilerPackage) as () => CompilerFactory)())(externalSchemas, options);
}
const defaultValidators = requiredOnFirstUse('@fastify/ajv-compiler');
const defaultSerializers = requiredOnFirstUse('@fastify/fast-json-stringify-compiler');

/**
 * A compiler whose functions compile on their first call (and keep Ajv's `errors` visible). The
 * compiler itself is built on first use too: Fastify asks for one per plugin context, and the
 * default factory serialises every shared schema to find it in its pool each time (measured:
 * ~170 ms of start-up for compilers most contexts never use).
 */
function compileOnFirstUse(factory: CompilerFactory): CompilerFactory {
  return (externalSchemas, options) => {
    let compiler: RouteCompiler | undefined;
    const compile = (route: unknown) => (compiler ??= factory(externalSchemas, options))(route);
    return (route) => {
      let compiled: Compiled | undefined;
      const lazy: Compiled = function (this: unknown, ...args: unknown[]) {
        compiled ??= compile(route);
        const result = compiled.apply(this, args);
        // Fastify reads a failed validation's details from the validator function itself.
        lazy.errors = compiled.errors;
        return result;
      };
      return lazy;
    };
  };
}

/** The `schemaController` option for Fastify: its default compilers, compiled on first use. */
export const lazySchemaController = {
  compilersFactory: {
    buildValidator: compileOnFirstUse(defaultValidators),
    buildSerializer: compileOnFirstUse(defaultSerializers),
  },
};
