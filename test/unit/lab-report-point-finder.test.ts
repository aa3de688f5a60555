// Decimal points and dashes found in the pixels of a numeric cell (point-finder.ts): a cell drawn
// as printed, read back with the text the engine gave for it. Points and dashes go in only between
// two digits and only when the pieces of ink pair up with the characters read; a space the pixels
// show inside a read number puts the cell in doubt; digits are never changed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import {
  pixelsPairWith,
  punctuationFromPixels,
} from '../../src/features/lab-reports/extraction/point-finder.ts';

/** A cell printed in 24 px type, dark grey on off-white, and its box. */
function printed(text: string) {
  const canvas = createCanvas(260, 44);
  const context = canvas.getContext('2d');
  context.fillStyle = '#f4f1ea';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = '#303030';
  context.font = '24px sans-serif';
  context.fillText(text, 12, 32);
  return { canvas, box: { x0: 2, y0: 2, x1: 250, y1: 42 } };
}

describe('points and dashes from the pixels', () => {
  const cases: [string, string, 'result' | 'range', string | undefined][] = [
    ['5.6 H', '56H', 'result', '5.6H'],
    ['9.6', '96', 'result', '9.6'],
    ['3.5-5.2', '3552', 'range', '3.5-5.2'],
    ['6.0-8.5', '6.0-85', 'range', '6.0-8.5'],
    ['5.8 *', '58°', 'result', '5.8°'],
    // Nothing printed to add: the reading stays.
    ['145', '145', 'result', undefined],
    ['0.92', '0.92', 'result', undefined],
    // A result cell never gets a dash, whatever the pixels show.
    ['3-5', '35', 'result', undefined],
    // The engine read a different number of characters than are printed: nothing is said.
    ['5.6', '5', 'result', undefined],
  ];
  for (const [drawn, read, cell, expected] of cases)
    test(`${drawn} read as ${read} (${cell}) → ${expected ?? 'unchanged'}`, () => {
      const { canvas, box } = printed(drawn);
      assert.equal(punctuationFromPixels(canvas, box, read, cell), expected);
    });

  test('a flag letter read as a digit (24.1 L read 2411) puts the cell in doubt', () => {
    const { canvas, box } = printed('24.1   L');
    assert.equal(punctuationFromPixels(canvas, box, '2411', 'result'), 'doubtful');
  });

  test('an empty box says nothing', () => {
    const { canvas, box } = printed('');
    assert.equal(punctuationFromPixels(canvas, box, '56', 'result'), undefined);
  });
});

describe('whether the ink bears out a reading', () => {
  test('two digits printed pair with a two-digit reading, not a one-digit one', () => {
    const { canvas, box } = printed('71');
    assert.equal(pixelsPairWith(canvas, box, '71'), true);
    assert.equal(pixelsPairWith(canvas, box, '7'), false);
  });
});
