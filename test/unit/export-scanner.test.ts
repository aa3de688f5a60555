// The export scanner (features/mobile/export-scanner.ts) against the reader it replaced: saxes
// behind the shape guard, building the same elements (kept here as the reference). On generated
// exports (entities and character references, both quotes, attributes in any order, line ends and
// tabs in values, multi-line tags, comments, CDATA, processing instructions, elements that are
// not data) fed in slices of any size, both hand over the same elements; on the same exports with
// one character inserted or removed, both accept or both refuse; on the shared real exports, the
// whole reader (readExport) hands over what the reference reads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { createExportScanner } from '../../src/features/mobile/export-scanner.ts';
import { EXPORT_LIMITS, readExport } from '../../src/features/mobile/export-stream.ts';
import type { XmlElement } from '../../src/provider-kit/mobile/samples.ts';
import { createXmlShapeGuard } from '../../src/provider-kit/mobile/xml-guard.ts';
import { appleMobile } from '../../src/providers/apple/mobile.ts';
import { describeWithShared, missingShared, sharedPath } from '../helpers/shared-reference.ts';

const spec = appleMobile.exportFile!;
const WANTED = new Set(spec.elements);
// eslint-disable-next-line no-control-regex -- what the reader replaces before parsing
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;

type Outcome = { elements: XmlElement[]; failed: boolean };

/** The reader before the scanner: the guard, then saxes, building the data elements from its events. */
function referenceRead(slices: readonly string[]): Outcome {
  const parser = new SaxesParser({ xmlns: false, position: false });
  const guard = createXmlShapeGuard(EXPORT_LIMITS);
  const stack: XmlElement[] = [];
  const elements: XmlElement[] = [];
  let depth = 0;
  let failed = false;
  parser.on('error', () => {
    failed = true;
  });
  parser.on('opentag', (tag) => {
    depth++;
    if (depth > EXPORT_LIMITS.maxDepth) throw new Error('depth');
    const capturing = stack.length > 0;
    if (!capturing && !(depth === 2 && WANTED.has(tag.name))) return;
    const element: XmlElement = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      children: [],
    };
    if (capturing) stack.at(-1)!.children.push(element);
    stack.push(element);
  });
  parser.on('closetag', () => {
    depth--;
    if (stack.length === 0) return;
    const element = stack.pop()!;
    if (stack.length === 0) elements.push(element);
  });
  try {
    for (const slice of slices) {
      guard(slice);
      parser.write(slice.replace(CONTROLS, ' '));
      if (failed) return { elements, failed };
    }
    parser.close();
  } catch {
    return { elements, failed: true };
  }
  return { elements, failed: failed || depth !== 0 };
}

function scannerRead(slices: readonly string[]): Outcome {
  const elements: XmlElement[] = [];
  const scanner = createExportScanner(WANTED, EXPORT_LIMITS, (element) => elements.push(element));
  try {
    for (const slice of slices) scanner.write(slice);
    scanner.close();
    return { elements, failed: false };
  } catch {
    return { elements, failed: true };
  }
}

/** `text` cut at the given lengths (cycled), so constructs straddle slices anywhere. */
function sliced(text: string, cuts: readonly number[]): string[] {
  const slices: string[] = [];
  for (let from = 0, turn = 0; from < text.length; turn++) {
    const size = cuts[turn % cuts.length]!;
    slices.push(text.slice(from, from + size));
    from += size;
  }
  return slices;
}

// ---- generated exports ----

const space = fc.constantFrom(' ', '  ', '\n', '\t', '\r\n', '\n    ');
/** A character of an attribute value as written in the file: plain, a reference, or a raw line end or tab. */
const valuePiece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }).map((text) => text.replace(/[<&"']/g, '')),
  },
  fc.constantFrom(
    '&amp;',
    '&lt;',
    '&gt;',
    '&quot;',
    '&apos;',
    '&#38;',
    '&#x3C;',
    '&#10;',
    '&#x9;',
    '&#128512;',
    '\t',
    '\n',
    '\r\n',
    '\r',
    '>',
    '’',
    '\u000B',
  ),
);
const attributeValue = fc
  .tuple(fc.array(valuePiece, { maxLength: 5 }), fc.boolean())
  .map(([pieces, single]) => {
    const text = pieces.join('');
    return single ? `'${text.replace(/'/g, '&apos;')}'` : `"${text.replace(/"/g, '&quot;')}"`;
  });
const ATTRIBUTE_NAMES = [
  'type',
  'sourceName',
  'sourceVersion',
  'device',
  'unit',
  'creationDate',
  'startDate',
  'endDate',
  'value',
  'key',
  'xml:lang',
  'a-b.c',
  '__proto__',
  'toString',
];
const attributes = fc
  .uniqueArray(fc.constantFrom(...ATTRIBUTE_NAMES), { maxLength: 6 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .tuple(space, fc.constantFrom('=', ' = ', '\n=\t'), attributeValue)
          .map(([before, equals, value]) => `${before}${name}${equals}${value}`),
      ),
    ),
  )
  .map((parts) => parts.join(''));

const leaf = (names: string[]) =>
  fc
    .tuple(fc.constantFrom(...names), attributes, fc.constantFrom('/>', ' />', '></X>'))
    .map(([name, attrs, end]) => `<${name}${attrs}${end.replace('X', name)}`);
const filler = fc.constantFrom(
  '\n ',
  '<!-- a comment > with a tag -->',
  '<?pi some > data?>',
  'text &amp; more',
  '<![CDATA[ <Record type="x"/> ]]>',
  '&#x20;',
  '',
);
const element = (names: string[], children: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.constantFrom(...names),
      attributes,
      fc.array(fc.oneof(children, filler), { maxLength: 4 }),
      space,
    )
    .map(
      ([name, attrs, inner, after]) =>
        `<${name}${attrs}>${inner.join('')}</${name}${after === '\n' ? '' : ' '}>`,
    );

const dataElement = fc.oneof(
  leaf(['Record', 'Workout', 'ActivitySummary', 'ExportDate', 'Me', 'Correlation']),
  element(['Record', 'Correlation', 'Workout', 'Me'], leaf(['MetadataEntry', 'Record', 'Location'])),
  element(['Workout'], element(['WorkoutRoute', 'WorkoutStatistics'], leaf(['Location', 'FileReference']))),
);
const document = fc
  .tuple(
    fc.constantFrom(
      '<?xml version="1.0" encoding="UTF-8"?>\n',
      "<?xml version='1.0'?>",
      '',
      '<?xml version="1.0" standalone="yes"?>\r\n<!-- head -->\n',
    ),
    attributes,
    fc.array(fc.tuple(space, fc.oneof({ weight: 4, arbitrary: dataElement }, filler)), { maxLength: 12 }),
    fc.constantFrom('\n', '', '\n<!-- tail -->\n'),
  )
  .map(
    ([head, rootAttributes, items, tail]) =>
      `${head}<HealthData${rootAttributes}>${items.map(([before, item]) => before + item).join('')}\n</HealthData>${tail}`,
  );
const cuts = fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 8 });

describe('export scanner against the saxes reader', () => {
  test('generated exports, cut anywhere: the same elements, attributes and children', () => {
    fc.assert(
      fc.property(document, cuts, (text, at) => {
        const reference = referenceRead([text]);
        assert.equal(reference.failed, false, 'the generator writes well-formed exports');
        const scanned = scannerRead(sliced(text, at));
        assert.equal(scanned.failed, false);
        assert.deepStrictEqual(scanned.elements, reference.elements);
      }),
      { numRuns: 400 },
    );
  });

  test('an export with one character inserted or removed: accepted by both or refused by both', () => {
    const mutation = fc.oneof(
      fc.tuple(
        fc.constant('insert' as const),
        fc.nat(),
        fc.constantFrom(...'<>&"\'/=!?-];x :\uFFFE\u0000'.split('')),
      ),
      fc.tuple(fc.constant('remove' as const), fc.nat(), fc.constant('')),
    );
    fc.assert(
      fc.property(document, mutation, cuts, (text, [kind, position, character], at) => {
        const index = position % (text.length + 1);
        const mutated =
          kind === 'insert'
            ? text.slice(0, index) + character + text.slice(index)
            : text.slice(0, index) + text.slice(index + 1);
        // Half a surrogate pair: the reader's decoder never makes one (saxes misreads it).
        fc.pre(mutated.isWellFormed());
        const reference = referenceRead([mutated]);
        const scanned = scannerRead(sliced(mutated, at));
        assert.equal(scanned.failed, reference.failed, `verdicts differ on ${JSON.stringify(mutated)}`);
        if (!reference.failed) assert.deepStrictEqual(scanned.elements, reference.elements);
      }),
      { numRuns: 3000 },
    );
  });

  test('malformed documents fail with the reason', () => {
    const cases: [string, RegExp][] = [
      ['<HealthData><Record a="1" a="2"/></HealthData>', /duplicate attribute: a/],
      ['<HealthData><Record a="1"b="2"/></HealthData>', /no whitespace between attributes/],
      ['<HealthData><Record a=1/></HealthData>', /unquoted attribute value/],
      ['<HealthData><Record a="&nbsp;"/></HealthData>', /undefined entity/],
      ['<HealthData><Record a="&#0;"/></HealthData>', /malformed character entity/],
      ['<HealthData><Record a="<"/></HealthData>', /disallowed character/],
      ['<HealthData><Record></HealthData>', /unmatched closing tag: HealthData/],
      ['<HealthData><!-- a -- b --></HealthData>', /malformed comment/],
      ['<HealthData/><HealthData/>', /only one root/],
      ['PK this is not really anything', /outside of root/],
      ['<HealthData>', /unclosed tag: HealthData/],
      ['', /must contain a root element/],
    ];
    for (const [text, reason] of cases) {
      const scanner = createExportScanner(WANTED, EXPORT_LIMITS, () => {});
      assert.throws(
        () => {
          scanner.write(text);
          scanner.close();
        },
        reason,
        text,
      );
      assert.equal(referenceRead([text]).failed, true, text);
    }
  });
});

const REAL = 'reference/mobile-samples/apple-health';
describeWithShared('export scanner on real exports', missingShared(REAL), () => {
  const files = [
    `${REAL}/apple-health-parser.export.xml`,
    `${REAL}/healthkit-to-sqlite.export.xml`,
    `${REAL}/healthkit-to-sqlite-zip/apple_health_export/export.xml`,
  ];
  for (const file of files)
    test(`${file.split('/').slice(-2).join('/')}: the reader hands over what saxes reads`, async () => {
      const text = readFileSync(sharedPath(file), 'utf8').replace(/<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>/, '');
      const reference = referenceRead([text]);
      assert.equal(reference.failed, false);
      assert.ok(reference.elements.length > 0);
      const handed: XmlElement[] = [];
      await readExport(sharedPath(file), spec, {
        skip: 0,
        batchSize: 3,
        onStart: async () => {},
        onBatch: async (batch) => {
          handed.push(...batch);
        },
      });
      assert.deepStrictEqual(handed, reference.elements);
      for (let size = 1; size < 40; size += 7)
        assert.deepStrictEqual(scannerRead(sliced(text, [size])).elements, reference.elements);
    });
});
