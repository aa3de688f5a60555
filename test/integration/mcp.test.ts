// The MCP server (docs/mcp.md) through the official SDK's own client over a real HTTP socket: it
// connects, lists the tools, reads a user's week; it is refused another developer's user, a user
// its per-user token was not minted for, and an expired token (the clock is moved, nothing sleeps).
// Every tool call lands in the audit log.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createDeveloper, startTestService, type TestDeveloper, type TestService } from '../helpers/app.ts';
import { connectSandboxUser } from '../helpers/connections.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the MCP server', () => {
  let service: TestService;
  let origin: string;
  let developer: TestDeveloper;
  let other: TestDeveloper;
  let userId: string;
  let secondUserId: string;
  let othersUserId: string;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const clients: Client[] = [];

  before(async () => {
    service = await startTestService({
      clock,
      work: false,
      env: { SANDBOX_ARRIVAL_MINUTES: 'off', MCP_CALL_LIMIT: '20/3600' },
    });
    developer = await createDeveloper(service.ctx, { name: 'Assistant maker' });
    other = await createDeveloper(service.ctx, { name: 'Someone else' });
    ({ userId } = await connectSandboxUser(service.app, developer, { referenceId: 'person-1' }));
    ({ userId: secondUserId } = await connectSandboxUser(service.app, developer));
    ({ userId: othersUserId } = await connectSandboxUser(service.app, other));
    await service.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await service?.close();
  });

  async function connect(headers: Record<string, string>): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers },
    });
    const client = new Client({ name: 'tributary-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const textOf = (result: Json) => (result.content as { text: string }[])[0]!.text;
  const week = { start_date: '2025-05-25', end_date: '2025-05-31' };

  async function mint(body: Json, who = developer) {
    // Through the socket: a route that takes a body.
    const response = await fetch(`${origin}/v2/mcp/tokens`, {
      method: 'POST',
      headers: { ...who.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  test('with the developer’s credentials: lists the tools and the users, reads a user’s week', async () => {
    const client = await connect(developer.headers);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), [
      'get_scores',
      'list_lab_results',
      'list_users',
      'read_data',
    ]);
    const listed = (await client.callTool({ name: 'list_users', arguments: {} })) as Json;
    const ids = (JSON.parse(textOf(listed)).users as Json[]).map((user) => user.user_id).sort();
    assert.deepEqual(ids, [userId, secondUserId].sort(), 'only this developer’s users');

    const read = (await client.callTool({
      name: 'read_data',
      arguments: { type: 'daily', user_id: userId, ...week },
    })) as Json;
    assert.notEqual(read.isError, true, textOf(read));
    const body = JSON.parse(textOf(read));
    assert.equal(body.user.user_id, userId);
    assert.deepEqual(
      body.records.map((record: Json) => record.date),
      ['2025-05-25', '2025-05-26', '2025-05-27', '2025-05-28', '2025-05-29', '2025-05-30', '2025-05-31'],
    );
    for (const record of body.records) assert.equal(typeof record.steps, 'number');
    assert.deepEqual(read.structuredContent, body);

    const sleep = JSON.parse(
      textOf(
        (await client.callTool({
          name: 'read_data',
          arguments: { type: 'sleep', user_id: userId, ...week },
        })) as Json,
      ),
    );
    assert.ok(
      sleep.records.length >= 6 &&
        sleep.records.every((night: Json) => typeof night.asleep_seconds === 'number'),
    );

    const person = JSON.parse(
      textOf(
        (await client.callTool({
          name: 'read_data',
          arguments: { type: 'daily', reference_id: 'person-1', ...week },
        })) as Json,
      ),
    );
    assert.equal(person.records.length, 7, 'the merged view of the person');

    const scores = JSON.parse(
      textOf(
        (await client.callTool({ name: 'get_scores', arguments: { user_id: userId, ...week } })) as Json,
      ),
    );
    assert.equal(scores.days.length, 7);
    assert.ok('recovery' in scores.trends);

    const labs = JSON.parse(
      textOf((await client.callTool({ name: 'list_lab_results', arguments: { user_id: userId } })) as Json),
    );
    assert.deepEqual(labs, { reference_id: 'person-1', reports: [] });
  });

  test('another developer’s user is refused (404), as the data API refuses it', async () => {
    const client = await connect(developer.headers);
    const refused = (await client.callTool({
      name: 'read_data',
      arguments: { type: 'daily', user_id: othersUserId, ...week },
    })) as Json;
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^404 not found/);
    assert.doesNotMatch(textOf(refused), /steps/);
    const badWindow = (await client.callTool({
      name: 'get_scores',
      arguments: { user_id: userId, start_date: '2025-01-01', end_date: '2025-12-31' },
    })) as Json;
    assert.equal(badWindow.isError, true);
    assert.match(textOf(badWindow), /^400 bad request: invalid end_date: a call reads at most 93 days/);
  });

  test('a per-user token reads its user only, and is refused once expired', async () => {
    const minted = await mint({ user_id: userId, expires_in_seconds: 120 });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    assert.equal(minted.body.scope, 'read');
    assert.match(minted.body.token, /^trm_/);
    assert.equal(
      (await mint({ user_id: othersUserId })).status,
      404,
      'no token for another developer’s user',
    );
    assert.equal((await mint({ user_id: userId, expires_in_seconds: 10 })).status, 400);

    const bearer = { authorization: `Bearer ${minted.body.token}` };
    const client = await connect(bearer);
    const listed = JSON.parse(textOf((await client.callTool({ name: 'list_users', arguments: {} })) as Json));
    assert.deepEqual(
      listed.users.map((user: Json) => user.user_id),
      [userId],
    );
    const read = (await client.callTool({
      name: 'read_data',
      arguments: { type: 'sleep', user_id: userId, ...week },
    })) as Json;
    assert.notEqual(read.isError, true, textOf(read));
    const sibling = (await client.callTool({
      name: 'read_data',
      arguments: { type: 'daily', user_id: secondUserId, ...week },
    })) as Json;
    assert.match(textOf(sibling), /^403 forbidden: this MCP token reads only the user it was minted for/);
    const person = (await client.callTool({
      name: 'read_data',
      arguments: { type: 'daily', reference_id: 'person-1', ...week },
    })) as Json;
    assert.equal(person.isError, true);

    offsetMs += 121_000;
    await assert.rejects(
      connect(bearer),
      (error: Error) => /401|expired/.test(String(error)),
      'an expired token connects no more',
    );
    const raw = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(raw.status, 401);
    assert.match(((await raw.json()) as Json).detail, /this MCP token expired at/);

    // Revoked: refused at once.
    const fresh = await mint({ user_id: userId });
    const revoke = await fetch(`${origin}/v2/mcp/tokens/${fresh.body.token_id}`, {
      method: 'DELETE',
      headers: developer.headers,
    });
    assert.equal(revoke.status, 204);
    await assert.rejects(connect({ authorization: `Bearer ${fresh.body.token}` }), /401|revoked/);
  });

  test('no credentials, or wrong ones: 401 problems before any MCP message is read', async () => {
    for (const headers of [
      {},
      { 'dev-id': developer.devId, 'x-api-key': 'nope' },
      { authorization: 'Bearer trm_unknown' },
    ]) {
      const response = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    }
    assert.equal((await fetch(`${origin}/mcp`, { headers: developer.headers })).status, 405);
  });

  test('limited like the data API: the read budget, and calls per credential', async () => {
    const limited = await createDeveloper(service.ctx, { name: 'Small budget' });
    const { userId: limitedUser } = await connectSandboxUser(service.app, limited);
    // The data API's hourly budget counts days read: 5 days an hour refuses a week.
    await service.ctx.developers.setHourlyDaysLimit(limited.devId, 5);
    const client = await connect(limited.headers);
    const refused = (await client.callTool({
      name: 'read_data',
      arguments: { type: 'daily', user_id: limitedUser, ...week },
    })) as Json;
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /^429 too many requests/);
    const direct = await fetch(
      `${origin}/v2/daily?user_id=${limitedUser}&start_date=2025-05-25&end_date=2025-06-01&to_webhook=false`,
      { headers: limited.headers },
    );
    assert.equal(direct.status, 429, 'the data API refuses the same read');
    // MCP_CALL_LIMIT=20/3600: the 21st call of this key in the window is refused (and audited as refused).
    for (let call = 2; call <= 20; call++) {
      const listed = (await client.callTool({ name: 'list_users', arguments: {} })) as Json;
      assert.notEqual(listed.isError, true, `call ${call}: ${textOf(listed)}`);
    }
    const over = (await client.callTool({ name: 'list_users', arguments: {} })) as Json;
    assert.match(
      textOf(over),
      /^429 too many requests: too many MCP tool calls with this credential; retry in \d+ s/,
    );
  });

  test('every tool call is in the audit log, refusals included', async () => {
    const entries = await service.ctx.dashboard.auditLog({ developerId: developer.devId }, 200);
    const actions = entries.map((entry) => entry.action);
    assert.ok(actions.includes('mcp.list_users'));
    assert.ok(actions.includes('mcp.read_data'));
    assert.ok(actions.includes('mcp.get_scores'));
    assert.ok(actions.includes('mcp.read_data.refused.404'));
    assert.ok(actions.includes('mcp.read_data.refused.403'));
    const refused = entries.find((entry) => entry.action === 'mcp.read_data.refused.404')!;
    assert.equal(refused.target, `user:${othersUserId}`);
    assert.match(refused.sessionRef, /^mcp:key_/);
    assert.ok(
      entries.some((entry) => /^mcp:mtk_/.test(entry.sessionRef)),
      'token calls name the token',
    );
    // 6 + 2 + 4 calls in the tests above, each once.
    assert.equal(entries.filter((entry) => entry.action.startsWith('mcp.')).length, 12);
  });
});
