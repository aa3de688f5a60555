// Whether bytes are a whole, intact FIT file, checked the way the FIT protocol defines it (FIT SDK,
// "FIT File Types" / "The Flexible and Interoperable Data Transfer Protocol", sections 3.3.1 and
// 3.3.2): a 12- or 14-byte header naming `.FIT` and the size of the records after it, an optional
// header CRC, the records, and a 2-byte CRC over header and records. Files may be chained, each
// with its own header and CRC. Nothing is decoded: an original file is kept as the provider gave
// it, and this only makes sure that what a developer receives as FIT is one.

/** The FIT SDK's published CRC-16 (polynomial 0xA001, reflected), computed a nibble at a time. */
const CRC_TABLE = [
  0x0000, 0xcc01, 0xd801, 0x1400, 0xf001, 0x3c00, 0x2800, 0xe401, 0xa001, 0x6c00, 0x7800, 0xb401, 0x5000,
  0x9c01, 0x8801, 0x4400,
] as const;

/** The FIT CRC of `bytes[from, to)`, continuing from `crc`. */
export function fitCrc16(bytes: Uint8Array, from = 0, to = bytes.length, crc = 0): number {
  for (let index = from; index < to; index++) {
    const byte = bytes[index]!;
    let tmp = CRC_TABLE[crc & 0xf]!;
    crc = ((crc >> 4) & 0x0fff) ^ tmp ^ CRC_TABLE[byte & 0xf]!;
    tmp = CRC_TABLE[crc & 0xf]!;
    crc = ((crc >> 4) & 0x0fff) ^ tmp ^ CRC_TABLE[(byte >> 4) & 0xf]!;
  }
  return crc;
}

const SIGNATURE = [0x2e, 0x46, 0x49, 0x54]; // ".FIT"

/**
 * Null when `bytes` are one or more chained FIT files, each with a valid header and CRC; else
 * what is wrong with them (one short sentence, for logs and the stored reason).
 */
export function fitFileProblem(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return 'empty file';
  let offset = 0;
  while (offset < bytes.length) {
    const headerSize = bytes[offset]!;
    if (headerSize !== 12 && headerSize !== 14) return `not a FIT file (header size ${headerSize})`;
    if (offset + headerSize > bytes.length) return 'not a FIT file (header cut short)';
    for (let index = 0; index < 4; index++) {
      if (bytes[offset + 8 + index] !== SIGNATURE[index]) return 'not a FIT file (no .FIT signature)';
    }
    if (headerSize === 14) {
      const headerCrc = bytes[offset + 12]! | (bytes[offset + 13]! << 8);
      // 0x0000 means the writer did not compute one (allowed by the protocol).
      if (headerCrc !== 0 && headerCrc !== fitCrc16(bytes, offset, offset + 12))
        return 'FIT header CRC does not match';
    }
    const dataSize =
      (bytes[offset + 4]! |
        (bytes[offset + 5]! << 8) |
        (bytes[offset + 6]! << 16) |
        (bytes[offset + 7]! << 24)) >>>
      0;
    const end = offset + headerSize + dataSize + 2;
    if (end > bytes.length) return `FIT file cut short (${bytes.length - offset} of ${end - offset} bytes)`;
    // The CRC over the whole file, its own two bytes included, is zero when they match.
    if (fitCrc16(bytes, offset, end) !== 0) return 'FIT file CRC does not match';
    offset = end;
  }
  return null;
}
