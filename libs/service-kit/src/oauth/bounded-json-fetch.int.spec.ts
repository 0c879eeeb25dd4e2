import { once } from 'node:events';
import { type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthFetchError, fetchBoundedJson } from './bounded-json-fetch';

const LIMITS = { timeoutMs: 500, maxBytes: 1024 };

/** A real HTTP server misbehaving on demand, as an issuer's metadata or key endpoint might. */
describe('fetchBoundedJson (real HTTP server)', () => {
  let server: Server;
  let base: string;
  const stalled: ServerResponse[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/jwks') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
      if (req.url === '/missing') return void res.writeHead(404).end('no');
      if (req.url === '/html') return void res.writeHead(200).end('<html>');
      if (req.url === '/declared-big') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
      if (req.url === '/streamed-big') {
        res.writeHead(200);
        res.write('['.repeat(800));
        return void res.end('['.repeat(800));
      }
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/jwks' }).end();
      // /stall: headers, then nothing — a server that never finishes.
      res.writeHead(200).write('{"keys":');
      stalled.push(res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of stalled) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads a JSON document', async () => {
    expect(await fetchBoundedJson(`${base}/jwks`, LIMITS)).toEqual({ keys: [] });
  });

  it.each([
    ['/missing', 'answered HTTP 404, not 200'],
    ['/html', 'did not answer JSON'],
    ['/declared-big', 'answered 5000 bytes, more than the 1024 allowed'],
    ['/streamed-big', 'answered more than the 1024 bytes allowed'],
    ['/redirect', 'fetch failed'],
    ['/stall', 'no complete answer within 500 ms'],
  ])('refuses %s: %s', async (path, reason) => {
    const failure = fetchBoundedJson(`${base}${path}`, LIMITS);
    await expect(failure).rejects.toThrow(OAuthFetchError);
    await expect(failure).rejects.toThrow(reason);
  });
});
