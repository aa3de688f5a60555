// How much of a provider's answer is read: at most PROVIDER_HTTP_MAX_ANSWER_MB (settings.ts).
// `response.text()` and `arrayBuffer()` read whatever arrives, so one provider (or a hostile
// BASE_URL, or a proxy in between) answering an endless body would fill the heap of the process
// every tenant shares. Here the body is read chunk by chunk and given up, its socket cancelled,
// as soon as it passes the cap (or at once when its declared length already does).

/** The answer is larger than the cap; the message names who answered and the limit. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';
}

/** `bytes` as the setting states it (whole MB where it is whole). */
export const megabytes = (bytes: number): string => `${+(bytes / 2 ** 20).toFixed(2)} MB`;

const tooLarge = (who: string, limitBytes: number, limitName: string) =>
  new AnswerTooLargeError(`${who} answered more than ${megabytes(limitBytes)} (${limitName}): not read`);

/**
 * The body of `response`, whole, if it is at most `limitBytes`; else an AnswerTooLargeError
 * (the rest of the body is not read, and its connection is released).
 */
export async function readAnswer(
  response: Response,
  limitBytes: number,
  who: string,
  limitName = 'PROVIDER_HTTP_MAX_ANSWER_MB',
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  const body = response.body;
  if (Number.isFinite(declared) && declared > limitBytes) {
    await body?.cancel().catch(() => {});
    throw tooLarge(who, limitBytes, limitName);
  }
  if (!body) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limitBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(who, limitBytes, limitName);
      }
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
}

/** The body of `response` as UTF-8 text, under the same cap as readAnswer. */
export async function readAnswerText(response: Response, limitBytes: number, who: string): Promise<string> {
  return new TextDecoder().decode(await readAnswer(response, limitBytes, who));
}
