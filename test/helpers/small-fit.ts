// A small, valid FIT activity file written byte by byte, with no SDK: a 14-byte header, a
// file_id message, record messages (timestamp, heart rate, distance), and the file CRC. The CRC
// is computed here with the FIT SDK's published nibble-table algorithm (FIT protocol document,
// "CRC"), independently of src/provider-kit/fit-file.ts, so tests check that code against a
// second implementation; the SDK's own Decoder reads these files too (test/unit/fit-file.test.ts).
// Used by fakes whose provider serves an original FIT file and by the corrupt-file tests.

const FIT_EPOCH_S = 631_065_600; // 1989-12-31T00:00:00Z

function crc16(bytes: Uint8Array, end = bytes.length): number {
  const table = [
    0x0000, 0xcc01, 0xd801, 0x1400, 0xf001, 0x3c00, 0x2800, 0xe401, 0xa001, 0x6c00, 0x7800, 0xb401, 0x5000,
    0x9c01, 0x8801, 0x4400,
  ];
  let crc = 0;
  for (let i = 0; i < end; i++) {
    const byte = bytes[i]!;
    let tmp = table[crc & 0xf]!;
    crc = (crc >> 4) & 0x0fff;
    crc = crc ^ tmp ^ table[byte & 0xf]!;
    tmp = table[crc & 0xf]!;
    crc = (crc >> 4) & 0x0fff;
    crc = crc ^ tmp ^ table[(byte >> 4) & 0xf]!;
  }
  return crc;
}

export type SmallFitPlan = {
  /** When the activity starts (epoch ms). */
  startMs: number;
  /** Records, one a second. */
  records?: number;
  /** A number that varies the heart rates, so files of different activities differ. */
  seed?: number;
  /** Bytes of developer padding appended as extra records (to make a large file). */
  padRecords?: number;
};

/** The FIT file's bytes. */
export function buildSmallFit(plan: SmallFitPlan): Uint8Array {
  const body: number[] = [];
  const u16 = (value: number) => body.push(value & 0xff, (value >> 8) & 0xff);
  const u32 = (value: number) =>
    body.push(value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, (value >>> 24) & 0xff);
  const start = Math.floor(plan.startMs / 1000) - FIT_EPOCH_S;

  // Definition of local message 0 as file_id (global 0), little-endian.
  body.push(0x40, 0, 0);
  u16(0);
  body.push(5);
  body.push(0, 1, 0x00); // type: enum
  body.push(1, 2, 0x84); // manufacturer: uint16
  body.push(2, 2, 0x84); // product: uint16
  body.push(3, 4, 0x8c); // serial_number: uint32z
  body.push(4, 4, 0x86); // time_created: uint32
  // file_id: activity (4), manufacturer development (255), product 1.
  body.push(0x00, 4);
  u16(255);
  u16(1);
  u32(12345 + (plan.seed ?? 0));
  u32(start);

  // Definition of local message 1 as record (global 20).
  body.push(0x41, 0, 0);
  u16(20);
  body.push(3);
  body.push(253, 4, 0x86); // timestamp: uint32
  body.push(3, 1, 0x02); // heart_rate: uint8
  body.push(5, 4, 0x86); // distance: uint32, scale 100 (m)
  const count = (plan.records ?? 30) + (plan.padRecords ?? 0);
  for (let i = 0; i < count; i++) {
    body.push(0x01);
    u32(start + i);
    body.push(100 + ((i * 7 + (plan.seed ?? 0)) % 60));
    u32(i * 300);
  }

  const bytes = new Uint8Array(14 + body.length + 2);
  bytes[0] = 14;
  bytes[1] = 0x20; // protocol 2.0
  bytes[2] = 2132 & 0xff; // profile 21.32
  bytes[3] = 2132 >> 8;
  new DataView(bytes.buffer).setUint32(4, body.length, true);
  bytes.set([0x2e, 0x46, 0x49, 0x54], 8); // ".FIT"
  const headerCrc = crc16(bytes, 12);
  bytes[12] = headerCrc & 0xff;
  bytes[13] = headerCrc >> 8;
  bytes.set(body, 14);
  const fileCrc = crc16(bytes, 14 + body.length);
  bytes[14 + body.length] = fileCrc & 0xff;
  bytes[15 + body.length] = fileCrc >> 8;
  return bytes;
}

/** `bytes` with one byte of the records flipped: the header is fine, the file CRC is not. */
export function corruptFit(bytes: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[20] = copy[20]! ^ 0xff;
  return copy;
}
