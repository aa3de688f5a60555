/**
 * The cold-start anchor: a bare Fastify server that opens PGlite on a data dir and answers
 * /ready once a query has run: what any service on embedded PostgreSQL pays to start, so the
 * bench can print Tributary's later start as a ratio to it. Run by bench/cold-start.ts on a copy
 * of the data dir Tributary itself started on.
 *
 *   node_modules/.bin/node bench/anchors/bare-pglite-server.ts <pgdata dir> <port>
 */
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';

const [pgdata, port] = process.argv.slice(2);
if (!pgdata || !port) throw new Error('usage: bare-pglite-server.ts <pgdata dir> <port>');

const app = Fastify();
const pglite = await PGlite.create({ dataDir: pgdata });
await pglite.query('select 1');
app.get('/ready', async () => ({ status: 'ready' }));
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => pglite.close())
    .finally(() => process.exit(0));
});
