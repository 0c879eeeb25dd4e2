import { type AddressInfo } from 'node:net';
import { Server, type ServerChannel, utils } from 'ssh2';

/** What a scripted server does once a client has sent an exec request and its stdin. */
export type ExecBehaviour = (stream: ServerChannel, stdin: Buffer, socketDestroy: () => void) => void;

export interface FakeSshServer {
  readonly port: number;
  /** `ssh-ed25519 AAAA…` of the server's host key. */
  readonly hostKey: string;
  readonly clientPrivateKey: string;
  /** Exec requests received: the command string and the stdin that came with it. */
  readonly execs: Array<{ command: string; stdin: Buffer }>;
  close(): Promise<void>;
}

/**
 * ssh2's in-process server, scripted per test, for faults a real sshd cannot be made to produce on
 * cue (a refused exec, a report cut mid-way, a connection dropped right after the program arrived).
 * Unit tests only: the behaviour of a real host is tested against OpenSSH.
 */
export async function startFakeSshServer(options: {
  behaviour?: ExecBehaviour;
  rejectExec?: boolean;
  rejectAuth?: boolean;
}): Promise<FakeSshServer> {
  const host = parseableEd25519KeyPair();
  const client = parseableEd25519KeyPair();
  const execs: Array<{ command: string; stdin: Buffer }> = [];
  const server = new Server({ hostKeys: [host.private] }, (connection) => {
    connection.on('error', () => undefined);
    connection.on('authentication', (ctx) =>
      ctx.method === 'publickey' && !options.rejectAuth ? ctx.accept() : ctx.reject(['publickey']),
    );
    connection.on('ready', () => {
      connection.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('exec', (accept, reject, info) => {
          if (options.rejectExec) return reject();
          const stream = accept();
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            const stdin = Buffer.concat(chunks);
            execs.push({ command: info.command, stdin });
            const destroy = (): void => (connection as unknown as { _sock: { destroy(): void } })._sock.destroy();
            (options.behaviour ?? defaultBehaviour)(stream, stdin, destroy);
          });
        });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hostKey: host.public.trim().split(/\s+/).slice(0, 2).join(' '),
    clientPrivateKey: client.private,
    execs,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function defaultBehaviour(stream: ServerChannel): void {
  stream.exit(0);
  stream.end();
}

/**
 * ssh2 1.17's ed25519 key generation strips leading zero bytes from the public key, so about one
 * pair in 256 is one its own parser rejects ("Malformed OpenSSH …", mscdex/ssh2#1390): draw again.
 */
function parseableEd25519KeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}
