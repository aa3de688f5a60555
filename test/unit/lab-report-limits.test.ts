// Reading limits checked before any work on a lab report (src/features/lab-reports/extraction/
// limits.ts): image sizes read from the headers real encoders write (PNG, JPEG, WebP from
// @napi-rs/canvas; GIF by its fixed header), the pixel limit, and the pass over a PDF's streams
// that stops a flate bomb and a page of too many text operations while a real report passes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { ConfigError } from '../../src/core/config.ts';
import {
  checkImage,
  checkPdfStreams,
  DEFAULT_READING_LIMITS,
  imageSize,
  LimitExceededError,
} from '../../src/features/lab-reports/extraction/limits.ts';
import { loadReadingLimits } from '../../src/features/lab-reports/settings.ts';
import { UnreadableFileError } from '../../src/features/lab-reports/extraction/errors.ts';
import { flateBombPdf, hugePng, millionTextOperationsPdf } from '../helpers/hostile-files.ts';
import { generateReport, renderPdf } from '../helpers/lab-report-samples.ts';

describe('lab report reading limits', () => {
  test('image sizes from the headers of real PNG, JPEG and WebP files, and a GIF', async () => {
    const canvas = createCanvas(321, 123);
    canvas.getContext('2d').fillRect(0, 0, 10, 10);
    for (const type of ['image/png', 'image/jpeg', 'image/webp'] as const)
      assert.deepEqual(imageSize(canvas.toBuffer(type as 'image/png')), { width: 321, height: 123 }, type);
    const lossless = await canvas.encode('webp', 100);
    assert.deepEqual(imageSize(lossless), { width: 321, height: 123 });
    const gif = Buffer.from('GIF89a\x41\x01\x7b\x00\x00\x00\x00', 'latin1');
    assert.deepEqual(imageSize(gif), { width: 321, height: 123 });
    assert.equal(imageSize(Buffer.from('not an image')), null);
  });

  test('an image over the pixel limit is refused before decoding, naming the limit; one without a size too', async () => {
    const error = (() => {
      try {
        checkImage(Buffer.alloc(0));
      } catch (caught) {
        return caught;
      }
    })();
    assert.ok(error instanceof UnreadableFileError);
    const huge = await hugePng(30_000);
    assert.throws(
      () => checkImage(huge),
      (caught: unknown) =>
        caught instanceof LimitExceededError &&
        /30000 × 30000 pixels, more than the 40,000,000-pixel limit/.test(caught.message),
    );
    const photo = createCanvas(4000, 3000).toBuffer('image/jpeg');
    checkImage(photo);
    assert.throws(
      () => checkImage(photo, { ...DEFAULT_READING_LIMITS, maxImagePixels: 11_999_999 }),
      LimitExceededError,
    );
  });

  test('a real report passes the stream check; a flate bomb and a page of too many text operations do not', async () => {
    const report = await renderPdf(
      generateReport({ layout: 'two-column', unitsColumn: true, system: 'SI', flagStyle: 'asterisk' }),
    );
    await checkPdfStreams(report);
    const small = { ...DEFAULT_READING_LIMITS, maxInflatedBytes: 16 * 1024 * 1024 };
    await assert.rejects(checkPdfStreams(await flateBombPdf(32), small), /inflates to more than 16 MB/);
    await checkPdfStreams(await flateBombPdf(8), small);
    await assert.rejects(
      checkPdfStreams(millionTextOperationsPdf(60_000)),
      /more than 50,000 text operations/,
    );
    await checkPdfStreams(millionTextOperationsPdf(40_000));
  });

  test('settings: defaults, overrides, and a bad value named', () => {
    assert.deepEqual(loadReadingLimits({}), DEFAULT_READING_LIMITS);
    assert.equal(loadReadingLimits({ LAB_REPORT_MAX_INFLATED_MB: '64' }).maxInflatedBytes, 64 * 1024 * 1024);
    assert.throws(() => loadReadingLimits({ LAB_REPORT_MAX_PAGE_INCHES: 'wide' }), ConfigError);
  });
});
