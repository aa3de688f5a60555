/**
 * The cold-start anchor: a bare Fastify server that starts the same embedded PostgreSQL on a data
 * dir and answers /ready once `select 1` has run: what any service on embedded PostgreSQL pays to
 * start, so the bench can print Tributary's later start as a ratio to it. Run by
 * bench/cold-start.ts on a copy of the data dir Tributary itself started on.
 *
 *   node_modules/.bin/node bench/anchors/bare-embedded-postgres-server.ts <data dir> <port>
 */
import Fastify from 'fastify';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/store/embedded/server.ts';

const [dataDir, port] = process.argv.slice(2);
if (!dataDir || !port) throw new Error('usage: bare-embedded-postgres-server.ts <data dir> <port>');

const app = Fastify();
const server = await startEmbeddedPostgres({ dataDir });
const client = new pg.Client({ connectionString: server.connectionString });
await client.connect();
await client.query('select 1');
app.get('/ready', async () => ({ status: 'ready' }));
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => client.end())
    .then(() => server.stop())
    .finally(() => process.exit(0));
});
