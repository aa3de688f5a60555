import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';
import { textArrayLiteral } from '../../src/store/text-array.ts';

// node-postgres's own conversion of a JS array parameter: the literal must be the same text.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as {
  prepareValue(value: unknown): string;
};

test('a text array literal is what node-postgres builds from the same strings', () => {
  const cases = [
    [],
    [''],
    ['plain', 'quo"te', 'back\\slash', '{"a":"b\\"c"}', 'NULL', ' spaced ', 'a,b', '{}'],
    ['control\n\tcharacters\u0000', 'lone \ud800 surrogate', 'emoji 😀 and ’'],
    [JSON.stringify({ id: 'h:x', source: { name: 'Ann’s "Watch"\\' }, value: 1 })],
  ];
  for (const values of cases) assert.equal(textArrayLiteral(values), prepareValue(values));
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary' })), (values) => {
      assert.equal(textArrayLiteral(values), prepareValue(values));
    }),
  );
});
