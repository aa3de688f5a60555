// A lab report's uploaded file: its bytes (a data-subject export), and download links that work
// without credentials until they expire (a sealed token naming the session and the developer).
import type { Clock } from '../../core/clock.ts';
import { notFound } from '../../core/errors.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import { wireDateTime } from '../../model/time.ts';
import type { Db } from '../../store/db.ts';
import { openFile } from './file-box.ts';
import { EXTENSIONS } from './media-types.ts';
import * as repo from './repo.ts';

/** How long a download link from `/files` works. */
const FILE_LINK_SECONDS = 15 * 60;

type Owner = { id: string };

export type FileLinksDeps = {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  publicUrl: string;
  /** The owner's session, or 404 (the service's check of the id and the owner). */
  mustFind(owner: Owner, sessionId: string): Promise<repo.SessionRow>;
};

export function createFileLinks(deps: FileLinksDeps) {
  const { db, clock, secretBox, mustFind } = deps;
  return {
    /** A report's uploaded file, byte for byte (undefined once deleted). */
    async uploadedFile(sessionId: string): Promise<Buffer | undefined> {
      const stored = await repo.readFile(db, sessionId);
      return stored && openFile(secretBox, stored);
    },

    /** The uploaded file behind a link that works without credentials until it expires. */
    async files(owner: Owner, sessionId: string) {
      const row = await mustFind(owner, sessionId);
      const expires = new Date(clock.now().getTime() + FILE_LINK_SECONDS * 1000);
      const token = secretBox.seal(JSON.stringify({ s: row.id, d: owner.id, e: expires.getTime() }));
      const filename =
        row.file_name ??
        `lab-report-${row.id}.${EXTENSIONS[row.media_type as keyof typeof EXTENSIONS] ?? 'bin'}`;
      return {
        files: [
          { filename, presigned_url: `${deps.publicUrl}/v2/lab-reports/files/download?token=${token}` },
        ],
        expires_at: wireDateTime(expires),
      };
    },

    /** Opens a download link from `files`: the file's bytes, or 404 once expired, forged or deleted. */
    async download(token: string): Promise<{ bytes: Buffer; mediaType: string; filename: string }> {
      const gone = () => notFound('this download link is invalid or has expired');
      let claim: { s?: unknown; d?: unknown; e?: unknown };
      try {
        claim = JSON.parse(secretBox.open(token)) as typeof claim;
      } catch {
        throw gone();
      }
      if (typeof claim.s !== 'string' || typeof claim.d !== 'string' || typeof claim.e !== 'number')
        throw gone();
      if (claim.e < clock.now().getTime()) throw gone();
      const row = await repo.findSession(db, claim.d, claim.s);
      const stored = row ? await repo.readFile(db, row.id) : undefined;
      if (!row || stored === undefined) throw gone();
      return {
        bytes: openFile(secretBox, stored),
        mediaType: row.media_type,
        filename:
          row.file_name ??
          `lab-report-${row.id}.${EXTENSIONS[row.media_type as keyof typeof EXTENSIONS] ?? 'bin'}`,
      };
    },
  };
}
