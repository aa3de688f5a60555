// The Open mHealth schema library (github.com/openmhealth/schemas, schema/omh; copied to
// ../shared/reference/openmhealth, see its SOURCES.md), compiled with Ajv for tests of the Open
// mHealth export. Each file is registered under its library URL, so its relative `$ref`s resolve
// as the library means them. `name-N.x.json` files are the library's "latest N.y" aliases; two of
// them (systolic/diastolic blood pressure 1.x) now point into the IEEE 1752.1 library, which is not
// available offline, so they resolve to their own 1.0 versions, which refer only to the library.
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { missingShared, sharedPath } from './shared-reference.ts';

export const OMH_DIR = 'reference/openmhealth/schema/omh';
export const missingOmh = () => missingShared(OMH_DIR);

const BASE = 'https://w3id.org/openmhealth/schemas/omh/';
const OFFLINE_ALIASES: Record<string, string> = {
  'systolic-blood-pressure-1.x.json': 'systolic-blood-pressure-1.0.json',
  'diastolic-blood-pressure-1.x.json': 'diastolic-blood-pressure-1.0.json',
};

let ajv: Ajv | undefined;

export function omhValidator(schema: string, version: string): ValidateFunction {
  if (!ajv) {
    const addFormats = addFormatsModule as unknown as (instance: Ajv) => Ajv;
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    const dir = sharedPath(OMH_DIR);
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const source = OFFLINE_ALIASES[file] ?? file;
      const parsed = JSON.parse(readFileSync(`${dir}/${source}`, 'utf8')) as Record<string, unknown>;
      // Draft-04 and draft-07 files side by side: Ajv reads both with its draft-07 vocabulary (the
      // library's draft-04 files use no keyword whose meaning changed).
      delete parsed['$schema'];
      delete parsed['id'];
      ajv.addSchema({ ...parsed, $id: `${BASE}${file}` });
    }
  }
  const validate = ajv.getSchema(`${BASE}${schema}-${version}.json`);
  if (!validate) throw new Error(`no Open mHealth schema ${schema}-${version}`);
  return validate;
}
