// Writes src/schema.ts: the types of Tributary's REST API, generated from its OpenAPI document.
import { writeFileSync } from 'node:fs';
import { SCHEMA_FILE, servedDocument, typesFor } from './openapi.ts';

const source = await typesFor(await servedDocument());
writeFileSync(SCHEMA_FILE, source);
console.log(`wrote ${SCHEMA_FILE} (${source.length} characters)`);
