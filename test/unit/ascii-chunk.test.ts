// The bundle's chunks are made pure ASCII after esbuild (scripts/ascii-chunk.ts): what esbuild
// keeps as written (comments, regular expressions, tagged templates' text) is rewritten for where
// it stands, and a module must do exactly what it did before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createContext, runInContext } from 'node:vm';
import { asciiOnly, isAscii, NotAsciiSafe } from '../../scripts/ascii-chunk.ts';

/** What a chunk-like script returns, run as a function body (one context: the same Array). */
const context = createContext();
const run = (source: string): unknown => runInContext(`(function () {\n${source}\n})()`, context);

test('every non-ASCII character becomes ASCII, and the code returns what it returned', () => {
  const source = [
    '/** A unit — in µs (luxon: “Rabiʻ I”, ١, 😀) */',
    '// a comment\u2028var afterSeparator = 1;',
    'var café = "é";',
    "var named = 'x\\é';",
    'var units = /(\\d+)(ns|µs|ms)/g;',
    'var range = /^[<>≤≥][é-ü]😀$/u;',
    'var identity = /^\\é$/;',
    'var astral = /^😀+$/;',
    'var plain = `a — ${café} …`;',
    'var continued = "a\\\u2028b";',
    'return [afterSeparator, café, named, units.exec("12µs"), range.test("≤ü😀"), range.test("<a"),',
    '  identity.test("é"),',
    '  astral.test("😀"), plain, continued, range.flags];',
  ].join('\n');
  const ascii = asciiOnly('sample.js', source);
  assert.ok(isAscii(Buffer.from(ascii)), ascii);
  assert.deepEqual(run(ascii), run(source));
  // A comment keeps its words, escaped; a line separator in it still ends the line.
  assert.match(ascii, /A unit \\u2014 in \\u00b5s/);
});

test('a tagged template is refused (its tag may read the raw text), and named with its source', () => {
  const source = '// src/page.ts\nvar html = (s) => s.raw[0];\nreturn html`a — b`;';
  assert.throws(
    () => asciiOnly('chunk.js', source),
    (error: Error) => {
      assert.ok(error instanceof NotAsciiSafe);
      assert.match(error.message, /^chunk\.js:3 \(from src\/page\.ts\): .*tagged template/);
      return true;
    },
  );
  // Written as an escape in the source, it is ASCII already and left as it is.
  const escaped = 'var html = (s) => s[0];\nreturn html`a \\u2014 b`;';
  assert.equal(asciiOnly('chunk.js', escaped), escaped);
  assert.equal(run(escaped), 'a — b');
});

test('an ASCII chunk is returned as it is, without parsing', () => {
  const source = 'return 1 +';
  assert.equal(asciiOnly('chunk.js', source), source);
  assert.ok(isAscii(Buffer.from(source)));
  assert.ok(!isAscii(Buffer.from('…')));
});
