// The lab-reports API version a developer has pinned, and the version that serves a request:
// its X-Terra-Version header, else the pin, else the latest (api-version.ts has the versions).
import type { Clock } from '../../core/clock.ts';
import type { Db } from '../../store/db.ts';
import {
  LAB_REPORT_VERSIONS,
  LATEST_VERSION,
  type LabReportVersion,
  parseVersionDate,
  resolveVersion,
  versionOn,
} from './api-version.ts';
import * as repo from './repo.ts';

type Owner = { id: string };

export function createVersionPins({ db, clock }: { db: Db; clock: Clock }) {
  /** A stored version (a pin, a session's) as one this build serves: the newest on or before it. */
  const known = (stored: string | null): LabReportVersion | null =>
    stored === null ? null : versionOn(stored);

  return {
    /**
     * The lab-reports API version serving a request: its X-Terra-Version header (400 naming the
     * header when malformed), else the developer's pin, else the latest.
     */
    async versionFor(owner: Owner, header: string | string[] | undefined): Promise<LabReportVersion> {
      if (header !== undefined) return resolveVersion(header, null);
      return resolveVersion(undefined, known(await repo.findVersionPin(db, owner.id)));
    },

    /** The developer's pin and the versions there are. */
    async versionPin(owner: Owner) {
      const pinned = known(await repo.findVersionPin(db, owner.id));
      return {
        api_version: pinned,
        served_without_header: pinned ?? LATEST_VERSION,
        latest: LATEST_VERSION,
        versions: [...LAB_REPORT_VERSIONS],
      };
    },

    /** Pins a version (a date resolves to the newest version on or before it); null unpins. */
    async pinVersion(owner: Owner, value: string | null) {
      const version = value === null ? null : parseVersionDate('api_version', value);
      await repo.setVersionPin(db, owner.id, version, clock.now());
      return this.versionPin(owner);
    },
  };
}
