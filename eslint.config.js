// Lint: the recommended JavaScript and TypeScript rules, with the project's own choices.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { idsPlugin } from './scripts/eslint/ids-rule.js';

// ---- Settings (issue 27): only the settings loader reads the environment ----
// Every setting is declared in a settings group and parsed by src/core/settings.ts; a module gets
// its typed settings from `config.settings`. This rule flags any `.env` member (`process.env`,
// `config.env`), any member of something named `env` (`env.PORT`, `env[name]`) and destructuring
// `{ env }`. Its own plugin (not no-restricted-syntax) so that other blocks' options cannot replace it.
export const noRawEnv = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      raw: 'Read settings through config.settings (declare them in a settings.ts, see ARCHITECTURE.md "A setting"), not from the environment.',
    },
  },
  create(context) {
    return {
      MemberExpression(node) {
        const named = (part, name) => part.type === 'Identifier' && part.name === name;
        if ((!node.computed && named(node.property, 'env')) || named(node.object, 'env'))
          context.report({ node, messageId: 'raw' });
      },
      'ObjectPattern > Property[key.name="env"]'(node) {
        context.report({ node, messageId: 'raw' });
      },
    };
  },
};

/**
 * Files allowed to read the environment: the settings loader and the CLI entry. The launcher's
 * own modules (bin/tributary.js, src/runtime/memory-limits.js) are JavaScript, outside the rule.
 */
export const RAW_ENV_ALLOWED = ['src/core/settings.ts', 'src/runtime/main.ts'];

export const settingsRules = {
  files: ['src/**/*.ts'],
  ignores: RAW_ENV_ALLOWED,
  plugins: { settings: { rules: { 'no-raw-env': noRawEnv } } },
  rules: { 'settings/no-raw-env': 'error' },
};
// ---- end of the settings rule ----

// ---- Pages (issue 27): markup only through the html tag (test/unit/html-lint.test.ts) ----
export const pageMarkupRules = {
  // HTML is escaped by construction (issue 27): dashboard and hosted pages are built with the
  // `html` tag of src/http/safe-html.ts, which escapes every interpolation that is not itself a
  // fragment. A plain template literal or string holding markup there would be sent unescaped
  // (or, holding a fragment, escaped twice); a fragment inside a plain template literal is turned
  // into a string. test/unit/html-lint.test.ts plants both and sees them fail.
  // The sandbox provider's consent page is a hosted page that lives with its routes.
  files: ['src/http/dashboard/**/*.ts', 'src/http/hosted/**/*.ts', 'src/http/routes/sandbox-consent.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector:
          ':not(TaggedTemplateExpression) > TemplateLiteral > TemplateElement[value.raw=/<[a-zA-Z!\\/]/]',
        message:
          'Build markup with the html`…` tag from src/http/safe-html.ts, not a plain template literal.',
      },
      {
        selector: 'Literal[value=/<[a-zA-Z!\\/]/]',
        message: 'Build markup with the html`…` tag from src/http/safe-html.ts, not a string literal.',
      },
      {
        selector: "TaggedTemplateExpression[tag.name!='html']",
        message: 'The only template tag for pages is html`…` from src/http/safe-html.ts.',
      },
      {
        selector:
          "CallExpression[callee.name='trustedHtml'] > :not(Literal, TemplateLiteral[expressions.length=0]).arguments",
        message: 'trustedHtml takes a constant written here (a literal), never a computed value.',
      },
    ],
    // Type-aware: a SafeHtml fragment (or any object) in a plain template literal becomes a string.
    '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
  },
};
// ---- end of pages ----

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'test-results/',
      '.stryker-tmp/',
      'reports/',
      'packages/*/dist/',
      'dist/',
      'packages/client/src/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Fakes declare a handle that closures read before it is assigned.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Type-aware rules (they read the TypeScript program): the ones this code base satisfies are
    // errors, so a regression cannot creep in. Rules that still report findings stay off until
    // the findings are fixed.
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-array-delete': 'error',
      '@typescript-eslint/no-duplicate-type-constituents': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/no-implied-eval': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unsafe-enum-comparison': 'error',
      '@typescript-eslint/no-unsafe-unary-minus': 'error',
      '@typescript-eslint/no-generated-empty-object-type': 'error',
      '@typescript-eslint/no-meaningless-void-operator': 'error',
      '@typescript-eslint/no-mixed-enums': 'error',
      '@typescript-eslint/no-unnecessary-boolean-literal-compare': 'error',
      '@typescript-eslint/no-unnecessary-type-arguments': 'error',
      '@typescript-eslint/no-useless-default-assignment': 'error',
      '@typescript-eslint/prefer-reduce-type-parameter': 'error',
      '@typescript-eslint/prefer-return-this-type': 'error',
      '@typescript-eslint/related-getter-setter-pairs': 'error',
    },
  },
  pageMarkupRules,
  {
    // node:test's describe/it return promises on purpose; in the service a dropped promise is a bug.
    files: ['src/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  settingsRules,
  // ---- Ids (issue 27 item 4): every id and token is minted by src/core/ids.ts. ----
  // The rule lives in its own plugin (scripts/eslint/ids-rule.js) so it does not share options with
  // other blocks' no-restricted-syntax; test/unit/id-lint.test.ts plants violations.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/core/ids.ts'],
    plugins: { ids: idsPlugin },
    rules: { 'ids/mint-through-core': 'error' },
  },

  // ---- end of ids ----
);
