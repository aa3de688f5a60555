// The layering of ARCHITECTURE.md, enforced by `npm run lint` (and so by CI). Layers, lowest first:
//   core (core/, model/) -> store (store/, jobs/) -> provider-kit -> providers -> provider-access
//   -> features -> http -> runtime
// A module may import its own layer and the layers below it, never above; nothing may form a cycle
// (type-only imports included). Providers see only the provider kit, the model and core, and never
// each other.
/** @type {import('dependency-cruiser').IConfiguration} */
const layers = [
  { name: 'core', path: '^src/(core|model)/' },
  { name: 'store', path: '^src/(store|jobs)/' },
  { name: 'provider-kit', path: '^src/provider-kit/' },
  { name: 'providers', path: '^src/providers/' },
  { name: 'provider-access', path: '^src/provider-access/' },
  { name: 'features', path: '^src/features/' },
  { name: 'http', path: '^src/http/' },
  { name: 'runtime', path: '^src/runtime/' },
];

const upward = layers.map((layer, index) => ({
  name: `no-upward-from-${layer.name}`,
  comment: `${layer.name} may import only ${layers
    .slice(0, index + 1)
    .map((l) => l.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: layers.slice(index + 1).map((l) => l.path) },
}));

module.exports = {
  forbidden: [
    ...upward.filter((rule) => rule.to.path.length > 0),
    {
      name: 'no-cycles',
      comment: 'Import cycles hide the real dependency order; break them by moving the shared piece down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-is-not-store',
      comment: 'The unified model and core helpers know nothing of storage.',
      severity: 'error',
      from: { path: '^src/(core|model)/' },
      to: { path: '^src/(store|jobs)/' },
    },
    {
      name: 'provider-kit-has-no-store',
      comment: 'The provider kit is types and pure helpers: providers never touch the database.',
      severity: 'error',
      from: { path: '^src/provider-kit/' },
      to: { path: '^src/(store|jobs)/' },
    },
    {
      name: 'providers-see-only-the-kit',
      comment: 'A provider imports the provider kit, the model and core: nothing else (not the store).',
      severity: 'error',
      from: { path: '^src/providers/[^/]+/' },
      to: { path: '^src/(store|jobs)/' },
    },
    {
      name: 'providers-are-independent',
      comment: 'A provider folder never imports another provider folder.',
      severity: 'error',
      from: { path: '^src/providers/([^/]+)/' },
      to: { path: '^src/providers/', pathNot: ['^src/providers/$1/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
