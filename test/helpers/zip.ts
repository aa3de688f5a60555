// Reading ZIP archives in tests (the data-subject archive): one entry, or every entry, from a file
// on disk or from bytes. yauzl checks each entry's CRC-32 as it reads, so a damaged archive fails.
import yauzl from 'yauzl';

const openZip = (source: string | Buffer) =>
  new Promise<yauzl.ZipFile>((resolve, reject) => {
    const done = (error: Error | null, file: yauzl.ZipFile) => (error ? reject(error) : resolve(file));
    if (typeof source === 'string') yauzl.open(source, { lazyEntries: true }, done);
    else yauzl.fromBuffer(source, { lazyEntries: true }, done);
  });

/**
 * The entries of a ZIP archive that `wanted` accepts, by name, byte for byte, read one at a time;
 * reading stops after `limit` of them (so one entry of a large archive is all that is held).
 */
async function readEntries(
  source: string | Buffer,
  wanted: (name: string) => boolean,
  limit = Number.POSITIVE_INFINITY,
): Promise<Map<string, Buffer>> {
  const zip = await openZip(source);
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!wanted(entry.fileName)) return zip.readEntry();
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          entries.set(entry.fileName, Buffer.concat(chunks));
          if (entries.size >= limit) {
            zip.close();
            resolve();
          } else zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return entries;
}

/** Every entry of a ZIP archive (a path or its bytes) by name, byte for byte. */
export const zipEntries = (source: string | Buffer) => readEntries(source, () => true);

/** One entry of a ZIP archive (a path or its bytes) as UTF-8 text, or null when it has none of that name. */
export async function zipEntryText(source: string | Buffer, name: string): Promise<string | null> {
  const found = await readEntries(source, (entryName) => entryName === name, 1);
  return found.get(name)?.toString('utf8') ?? null;
}
