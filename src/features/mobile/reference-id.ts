// The developer's own reference for a user (`reference_id`) on SDK connections and imports.
import { invalidParameter } from '../../core/errors.ts';

const REFERENCE_ID = /^[\x21-\x7e]{1,255}$/;

/** The reference as given, or null when there is none; a 400 when it is not one. */
export function parseReference(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (!REFERENCE_ID.test(value))
    throw invalidParameter('reference_id', 'up to 255 printable characters without spaces');
  return value;
}
