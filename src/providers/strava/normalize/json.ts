// Strava ids are int64 and its own examples use values past 2^53 (e.g. 12345678987654321), which
// JSON.parse silently rounds. This parser keeps any integer JSON.parse cannot hold exactly as its
// source text (JSON.parse source-text access, Node >= 21), so ids survive as exact strings.
// Numbers that fit are left alone, so the normalizers see ordinary numbers everywhere else.
// Cannot map: nothing (a parser, not a mapping).

type ReviverContext = { source?: string };

function keepExactIntegers(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined) {
    // Only integers lose digits; 1e21 or 3.14 written as such are returned as numbers.
    if (/^-?\d+$/.test(context.source)) return context.source;
  }
  return value;
}

export function parseStravaJson(text: string): unknown {
  return JSON.parse(text, keepExactIntegers);
}
