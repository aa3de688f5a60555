import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  booleanArrayLiteral,
  nullableTextArrayLiteral,
  numberArrayLiteral,
} from '../../src/store/array-literals.ts';

// node-postgres's own conversion of a JS array parameter, for the strings: the same text.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as {
  prepareValue(value: unknown): string;
};

test('a nullable text array literal is what node-postgres builds from the same values', () => {
  const cases = [[], [null], ['', null, 'NULL', 'quo"te', 'back\\slash', 'a,b', '{}', 'control\n\u0000']];
  for (const values of cases) assert.equal(nullableTextArrayLiteral(values), prepareValue(values));
  fc.assert(
    fc.property(fc.array(fc.option(fc.string({ unit: 'binary' }))), (values) => {
      assert.equal(nullableTextArrayLiteral(values), prepareValue(values));
    }),
  );
});

test('numbers and booleans go unquoted; null and non-finite numbers as NULL', () => {
  assert.equal(numberArrayLiteral([]), '{}');
  assert.equal(numberArrayLiteral([1, null, -2.5, 1_764_768_000_123, 0]), '{1,NULL,-2.5,1764768000123,0}');
  assert.equal(numberArrayLiteral([Number.NaN, Number.POSITIVE_INFINITY]), '{NULL,NULL}');
  assert.equal(booleanArrayLiteral([]), '{}');
  assert.equal(booleanArrayLiteral([true, false, true]), '{t,f,t}');
});
