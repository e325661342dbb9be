import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { addressProblem, urlProblem } from '../src/webhooks/address.js';
import { EXCERPT_LENGTH, MAX_ANSWER_BYTES, postWebhook, retryAfterMs } from '../src/webhooks/client.js';
import { eventTypeOf, eventTypeProblem, messageIdOf, wants, webhookBody } from '../src/webhooks/events.js';
import type { WebhookChange } from '../src/webhooks/feed.js';
import {
  MAX_RETRY_AFTER_MS,
  MAX_RETRY_MS,
  nextDelayMs,
  RETRY_WINDOW_MS,
  retryDelayMs,
} from '../src/webhooks/schedule.js';
import { SecretBox } from '../src/webhooks/secret-box.js';
import { newSigningSecret, signedHeaders } from '../src/webhooks/signature.js';
import { scratchDirectory } from './helpers/scratch.js';

// The pieces of webhooks that need no database: signatures checked by the `standardwebhooks`
// package (a receiver's own code, not the gateway's), the secrets' encryption, which addresses an
// attempt may reach, the retry schedule, and the HTTP client against real servers on loopback ports.

const change: WebhookChange = {
  cursor: '000000000042',
  kind: 'UPDATED',
  type: 'WhiteboardObjectInstance',
  rowId: 7,
  whiteboardId: 3,
  organizationId: 1,
  committedAt: new Date('2026-11-27T10:00:00.000Z'),
  actor: { userId: 2, credential: 'API_KEY' },
};

describe('signatures (Standard Webhooks)', () => {
  const body = webhookBody(change);
  const sentAt = new Date();

  it('verify with the standardwebhooks package, and not once the body or the id changes', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = signedHeaders('msg_1', sentAt, body, [secret]);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('"rowId":7', '"rowId":8'), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  it('carry one signature per secret during a rotation, each verifying alone', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const headers = signedHeaders('msg_1', sentAt, body, [current, previous]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous])
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('are refused by the receiver when older than its tolerance (an attempt is signed when it is sent)', () => {
    const secret = newSigningSecret();
    const headers = signedHeaders('msg_1', new Date(Date.now() - 10 * 60_000), body, [secret]);
    expect(() => new Webhook(secret).verify(body, headers)).toThrow(/too old/i);
  });
});

describe('the body', () => {
  it('names the change as a subscription event does, with its cursor, when and who, and nothing of the row', () => {
    expect(JSON.parse(webhookBody(change))).toEqual({
      type: 'whiteboard_object_instance.updated',
      timestamp: '2026-11-27T10:00:00.000Z',
      data: {
        kind: 'UPDATED',
        type: 'WhiteboardObjectInstance',
        rowId: 7,
        id: Buffer.from('WhiteboardObjectInstance:7').toString('base64'),
        whiteboardId: 3,
        organizationId: 1,
        cursor: '000000000042',
        committedAt: '2026-11-27T10:00:00.000Z',
        actor: { userId: 2, credential: 'API_KEY' },
      },
    });
    expect(
      JSON.parse(webhookBody({ ...change, kind: 'MOVED', type: 'Whiteboard', rowIds: [4, 5] })).data.rowIds,
    ).toEqual([4, 5]);
  });

  it('has a message id that depends on the change alone', () => {
    expect(messageIdOf(change)).toBe(messageIdOf({ cursor: change.cursor }));
    expect(messageIdOf(change)).not.toBe(messageIdOf({ cursor: '000000000043' }));
    expect(messageIdOf(change)).toMatch(/^msg_[\w-]{24}$/);
  });
});

describe('event types and filters', () => {
  it('are <type>.<kind>, <type>.* or *, of the types an organization may read', () => {
    expect(eventTypeOf(change)).toBe('whiteboard_object_instance.updated');
    for (const good of ['*', 'slide.*', 'whiteboard.archived', 'membership.deleted', 'texture.created'])
      expect(eventTypeProblem(good), good).toBeUndefined();
    for (const bad of ['', 'slide', 'slide.renamed', 'api_key.created', 'Slide.updated', 'slide.updated.x', '**'])
      expect(eventTypeProblem(bad), bad).toBeDefined();
  });

  it('let an endpoint take what it names, on the boards it names', () => {
    const on = (eventTypes: string[], whiteboardIds: number[] = []) => wants({ eventTypes, whiteboardIds }, change);
    expect(on(['*'])).toBe(true);
    expect(on(['whiteboard_object_instance.*'])).toBe(true);
    expect(on(['whiteboard_object_instance.updated'])).toBe(true);
    expect(on(['whiteboard_object_instance.created', 'slide.*'])).toBe(false);
    expect(on(['*'], [3, 4])).toBe(true);
    expect(on(['*'], [4])).toBe(false);
    expect(wants({ eventTypes: ['*'], whiteboardIds: [3] }, { ...change, type: 'Library', whiteboardId: null })).toBe(
      false,
    );
    // An API key is its owner's alone: no endpoint of the organization hears of one.
    expect(wants({ eventTypes: ['*'], whiteboardIds: [] }, { ...change, type: 'ApiKey', whiteboardId: null })).toBe(
      false,
    );
  });
});

describe('secrets at rest', () => {
  const [first, second] = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];

  it('are sealed (AES-256-GCM): the stored text holds no secret, and opens only for its organization', () => {
    const box = new SecretBox([first]);
    const secret = newSigningSecret();
    const sealed = box.seal(secret, 1);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.seal(secret, 1)).not.toBe(sealed);
    expect(box.open(sealed, 1)).toBe(secret);
    expect(() => box.open(sealed, 2)).toThrow();
    const [version, keyId, iv, data, tag] = sealed.split(':');
    const altered = [
      version,
      keyId,
      iv,
      Buffer.from(Buffer.from(data, 'base64url').map((byte) => byte ^ 1)).toString('base64url'),
      tag,
    ];
    expect(() => box.open(altered.join(':'), 1)).toThrow();
  });

  it('open under any configured key while the key is rotated, and name a key no longer configured', () => {
    const sealed = new SecretBox([first]).seal('whsec_x', 1);
    expect(new SecretBox([second, first]).open(sealed, 1)).toBe('whsec_x');
    expect(new SecretBox([second, first]).seal('whsec_x', 1).split(':')[1]).not.toBe(sealed.split(':')[1]);
    expect(() => new SecretBox([second]).open(sealed, 1)).toThrow(/WEBHOOK_ENCRYPTION_KEY does not hold/);
  });
});

describe('addresses', () => {
  const refused = [
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.10.10',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1%eth0',
    '::ffff:10.0.0.1',
    '::ffff:a00:1',
    '::ffff:127.0.0.1',
    '::127.0.0.1',
  ];
  const never = [
    '169.254.169.254',
    '::ffff:169.254.169.254',
    '100.100.100.200',
    'fd00:ec2::254',
    '0.0.0.0',
    '::',
    '224.0.0.1',
    '255.255.255.255',
    'ff02::1',
    '64:ff9b::a00:1',
    '2002:a00:1::',
  ];
  const reached = ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'];

  it('private, loopback, link-local, carrier-grade NAT and unique-local ones are reached only with WEBHOOK_ALLOW_PRIVATE', () => {
    for (const address of refused) {
      expect(addressProblem(address, false), address).toBeDefined();
      expect(addressProblem(address, true), address).toBeUndefined();
    }
  });

  it('metadata services, reserved, multicast and addresses with IPv4 inside are never reached', () => {
    for (const address of never) expect(addressProblem(address, true), address).toBeDefined();
  });

  it('public ones are', () => {
    for (const address of reached) expect(addressProblem(address, false), address).toBeUndefined();
  });
});

describe('endpoint URLs', () => {
  it('are https, without credentials or fragment, to no literal address that is refused', () => {
    expect(urlProblem('https://hooks.example.com/in?token=1', false)).toBeUndefined();
    expect(urlProblem('https://93.184.215.14:8443/in', false)).toBeUndefined();
    expect(urlProblem('http://hooks.example.com/in', false)).toMatch(/https/);
    expect(urlProblem('ftp://hooks.example.com/', false)).toMatch(/https/);
    expect(urlProblem('https://user:pw@hooks.example.com/', false)).toMatch(/credentials/);
    expect(urlProblem('https://hooks.example.com/#x', false)).toMatch(/fragment/);
    expect(urlProblem('hooks.example.com/in', false)).toMatch(/absolute/);
    expect(urlProblem(`https://hooks.example.com/${'a'.repeat(2048)}`, false)).toMatch(/longer/);
    expect(urlProblem('https://10.1.2.3/in', false)).toMatch(/private/);
    expect(urlProblem('https://[::ffff:7f00:1]/in', false)).toMatch(/private/);
    expect(urlProblem('https://169.254.169.254/latest', true)).toMatch(/metadata/);
    expect(urlProblem('https://localhost/in', false)).toMatch(/loopback/);
  });

  it('may be http:// to a loopback host only with WEBHOOK_ALLOW_PRIVATE', () => {
    expect(urlProblem('http://127.0.0.1:8080/in', true)).toBeUndefined();
    expect(urlProblem('http://localhost:8080/in', true)).toBeUndefined();
    expect(urlProblem('http://[::1]:8080/in', true)).toBeUndefined();
    expect(urlProblem('http://127.0.0.1:8080/in', false)).toBeDefined();
    expect(urlProblem('http://10.0.0.1/in', true)).toMatch(/loopback/);
    expect(urlProblem('https://10.0.0.1/in', true)).toBeUndefined();
  });
});

describe('the retry schedule', () => {
  it('doubles from 10 s up to 2 h between attempts, half of each wait at random', () => {
    expect(retryDelayMs(1, () => 0)).toBe(5_000);
    expect(retryDelayMs(1, () => 1)).toBe(10_000);
    expect(retryDelayMs(2, () => 1)).toBe(20_000);
    expect(retryDelayMs(5, () => 1)).toBe(160_000);
    expect(retryDelayMs(30, () => 1)).toBe(MAX_RETRY_MS);
    expect(retryDelayMs(30, () => 0)).toBe(MAX_RETRY_MS / 2);
  });

  it('spans 24 hours in 21 to 33 attempts (docs/webhooks.md)', () => {
    const attemptsIn24Hours = (random: () => number) => {
      let [elapsed, attempts] = [0, 1];
      while (elapsed + retryDelayMs(attempts, random) <= RETRY_WINDOW_MS) elapsed += retryDelayMs(attempts++, random);
      return attempts;
    };
    expect([0, 0.5, 1].map((value) => attemptsIn24Hours(() => value))).toEqual([33, 25, 21]);
  });

  it("waits for a receiver's Retry-After when that is longer, at most an hour", () => {
    expect(nextDelayMs(1, 120_000, () => 1)).toBe(120_000);
    expect(nextDelayMs(1, 1_000, () => 1)).toBe(10_000);
    expect(nextDelayMs(1, 24 * 3_600_000, () => 1)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs('120')).toBe(120_000);
    expect(retryAfterMs(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(58_000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('the client', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  async function serve(handler: Parameters<typeof createHttpServer>[1], server = createHttpServer(handler)) {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  const post = (url: string, options: Partial<Parameters<typeof postWebhook>[3]> = {}) =>
    postWebhook(url, { 'webhook-id': 'msg_1' }, '{"a":1}', { allowPrivate: true, ...options });

  it('POSTs the body with its headers and keeps the status and a short excerpt of the answer', async () => {
    let seen: { method?: string; type?: string; id?: string; body?: string } = {};
    const port = await serve(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      seen = {
        method: request.method,
        type: request.headers['content-type'],
        id: request.headers['webhook-id'] as string,
        body,
      };
      response.writeHead(202).end(`accepted\n${'x'.repeat(1000)}`);
    });
    const result = await post(`http://127.0.0.1:${port}/in`);
    expect(seen).toEqual({ method: 'POST', type: 'application/json', id: 'msg_1', body: '{"a":1}' });
    expect(result.status).toBe(202);
    expect(result.excerpt).toMatch(/^accepted x+$/);
    expect(result.excerpt.length).toBe(EXCERPT_LENGTH);
  });

  it('follows no redirect', async () => {
    let redirected = 0;
    const target = await serve((_request, response) => {
      redirected++;
      response.end();
    });
    const port = await serve((_request, response) =>
      response.writeHead(307, { location: `http://127.0.0.1:${target}/` }).end(),
    );
    expect((await post(`http://127.0.0.1:${port}/in`)).status).toBe(307);
    expect(redirected).toBe(0);
  });

  it(`reads at most ${MAX_ANSWER_BYTES / 1024} KiB of an answer and hangs up on the rest`, async () => {
    let written = 0;
    let closedEarly = false;
    const port = await serve((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'y');
      const more = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end();
      };
      response.on('close', () => (closedEarly = !response.writableFinished));
      more();
    });
    const started = Date.now();
    const result = await post(`http://127.0.0.1:${port}/in`);
    expect(result.status).toBe(200);
    expect(result.excerpt.length).toBe(EXCERPT_LENGTH);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closedEarly).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up at its time bound, whatever the receiver does', async () => {
    const port = await serve(() => undefined);
    const started = Date.now();
    const result = await post(`http://127.0.0.1:${port}/in`, { timeoutMs: 300 });
    expect(result).toEqual({ status: null, excerpt: 'no answer within 0.3 s' });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports a refused connection as an attempt without a status', async () => {
    const port = await serve(() => undefined);
    servers.pop()!.close();
    const result = await post(`http://127.0.0.1:${port}/in`);
    expect(result.status).toBeNull();
    expect(result.excerpt).toMatch(/ECONNREFUSED/);
  });

  it('resolves the host at every attempt, once, and connects only to the address it checked (DNS rebinding)', async () => {
    let reached = 0;
    const port = await serve((_request, response) => {
      reached++;
      response.end();
    });
    const answers = ['192.0.2.1' /* reserved */, '127.0.0.1', '127.0.0.1'];
    let lookups = 0;
    const resolve = ((_host: string, _options: object, callback: (e: null, a: object[]) => void) =>
      callback(null, [{ address: answers[lookups++], family: 4 }])) as never;
    const url = `https://hooks.example.test:${port}/in`;
    const first = await postWebhook(url, {}, '{}', { allowPrivate: false, resolve });
    expect(first.excerpt).toMatch(/hooks\.example\.test resolves to 192\.0\.2\.1 is a reserved/);
    const second = await postWebhook(url, {}, '{}', { allowPrivate: false, resolve });
    expect(second.excerpt).toMatch(/resolves to 127\.0\.0\.1 is a private/);
    expect([lookups, reached]).toEqual([2, 0]);
    // Allowed, the same name reaches the receiver at the address the lookup gave.
    const allowed = await postWebhook(`http://localhost:${port}/in`, {}, '{}', { allowPrivate: true, resolve });
    expect([allowed.status, lookups, reached]).toEqual([200, 3, 1]);
  });

  it('speaks TLS, checking the receiver’s certificate', async () => {
    const directory = scratchDirectory('webhook-tls-');
    const [key, cert] = [join(directory, 'key.pem'), join(directory, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) =>
      response.writeHead(200).end('ok'),
    );
    const port = await serve(undefined, server as unknown as Server);
    const url = `https://127.0.0.1:${port}/in`;
    expect(await post(url, { ca: readFileSync(cert) })).toMatchObject({ status: 200, excerpt: 'ok' });
    const untrusted = await post(url);
    expect(untrusted.status).toBeNull();
    expect(untrusted.excerpt).toMatch(/self.signed|certificate/i);
  });
});
