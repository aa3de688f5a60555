// What every extractor hands on: the words of a page with where they sit. Coordinates are the
// page's own (PDF points or image pixels), x from the left, y of the baseline from the top, so
// rows can be rebuilt the same way whichever extractor read the page.
export type TextToken = {
  text: string;
  x0: number;
  x1: number;
  /** Baseline, from the top of the page. */
  y: number;
  height: number;
  /** OCR only: 0–100. */
  confidence?: number;
};

export type PageText = {
  page: number;
  width: number;
  height: number;
  source: 'text_layer' | 'ocr';
  tokens: TextToken[];
};
