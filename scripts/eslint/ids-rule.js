// ESLint rule `ids/mint-through-core` (issue 27 item 4): every id and bearer token is minted by
// src/core/ids.ts. It reports, anywhere else:
// - `randomUUID` imported from node:crypto, or any `….randomUUID()` call (use `newUuid()`);
// - random bytes turned into text inside a template literal (`x_${randomBytes(8).toString('hex')}`);
// - a template literal that builds an id of a registered kind by hand: one of the prefixes in
//   ids.ts (ID_PREFIXES, TOKEN_PREFIXES) followed by `_` and an expression (`evt_${…}`).
// The prefixes are read from ids.ts itself, so a new kind is covered the moment it is registered.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const idsSource = readFileSync(join(import.meta.dirname, '../../src/core/ids.ts'), 'utf8');

/** The string values of `ID_PREFIXES` and `TOKEN_PREFIXES` in ids.ts. */
function registeredPrefixes(source) {
  const prefixes = [];
  for (const block of source.matchAll(/export const (?:ID|TOKEN)_PREFIXES = \{([^}]*)\}/g))
    for (const value of block[1].matchAll(/:\s*'([^']+)'/g)) prefixes.push(value[1]);
  return prefixes;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const prefixes = registeredPrefixes(idsSource);
const handBuilt = new RegExp(`(?:^|[^A-Za-z0-9_])(${prefixes.map(escape).join('|')})_$`);

const isRandomBytesText = (node) =>
  node.type === 'CallExpression' &&
  node.callee.type === 'MemberExpression' &&
  node.callee.property.type === 'Identifier' &&
  node.callee.property.name === 'toString' &&
  node.callee.object.type === 'CallExpression' &&
  ((node.callee.object.callee.type === 'Identifier' && node.callee.object.callee.name === 'randomBytes') ||
    (node.callee.object.callee.type === 'MemberExpression' &&
      node.callee.object.callee.property.type === 'Identifier' &&
      node.callee.object.callee.property.name === 'randomBytes'));

export const mintThroughCore = {
  meta: {
    type: 'problem',
    docs: { description: 'ids and tokens are minted only by src/core/ids.ts' },
    messages: {
      uuid: 'Mint UUIDs with newUuid() from src/core/ids.ts.',
      randomText: 'Random bytes made into an id or token: mint it with src/core/ids.ts (newId, newToken).',
      prefix: 'A "{{prefix}}_" id built by hand: mint it with src/core/ids.ts (newId, newUuidId, newToken).',
    },
    schema: [],
  },
  create(context) {
    return {
      ImportDeclaration(node) {
        if (node.source.value !== 'node:crypto' && node.source.value !== 'crypto') return;
        for (const specifier of node.specifiers)
          if (specifier.type === 'ImportSpecifier' && specifier.imported.name === 'randomUUID')
            context.report({ node: specifier, messageId: 'uuid' });
      },
      CallExpression(node) {
        if (
          node.callee.type === 'MemberExpression' &&
          node.callee.property.type === 'Identifier' &&
          node.callee.property.name === 'randomUUID'
        )
          context.report({ node, messageId: 'uuid' });
      },
      TemplateLiteral(node) {
        for (const expression of node.expressions)
          if (isRandomBytesText(expression)) context.report({ node, messageId: 'randomText' });
        node.quasis.forEach((quasi, index) => {
          if (index >= node.expressions.length) return;
          const match = handBuilt.exec(quasi.value.cooked ?? quasi.value.raw);
          if (match) context.report({ node, messageId: 'prefix', data: { prefix: match[1] } });
        });
      },
    };
  },
};

export const idsPlugin = { rules: { 'mint-through-core': mintThroughCore } };
