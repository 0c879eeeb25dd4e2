import { createHash } from 'node:crypto';
import type { SshHostKey } from '@onceport/domain';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { REMOTE_COMMAND } from './build-script';

export interface SessionTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly hostKey: SshHostKey;
  /** OpenSSH or PEM private key text (no passphrase). */
  readonly privateKey: string;
}

export interface SessionLimits {
  /** The whole session, connect included; the session is cut when it runs out. */
  readonly timeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly maxStdoutBytes: number;
  readonly maxStderrBytes: number;
}

export type NotSentCode = 'host_key_mismatch' | 'auth_failed' | 'bad_credential' | 'connect_failed' | 'connect_timeout' | 'exec_refused';

/**
 * One SSH session, split at the only boundary that matters for duplicates: whether the program was
 * handed to the exec channel. Before that nothing can have run on the host; after it, anything may.
 */
export type SessionResult =
  | { readonly stage: 'not_sent'; readonly code: NotSentCode; readonly reason: string; readonly retryable: boolean }
  | {
      readonly stage: 'sent';
      /** `closed`: the remote side ended the channel; otherwise the session was lost or cut. */
      readonly ending: 'closed' | 'timeout' | 'connection_lost';
      readonly reason: string;
      readonly stdout: Buffer;
      readonly stdoutTotal: number;
      readonly stderr: Buffer;
      readonly stderrTotal: number;
      readonly exitCode: number | null;
      readonly exitSignal: string | null;
    };

/** Algorithms a pinned key of this type may be presented with (RSA keys sign with SHA-2 now). */
function hostKeyAlgorithms(algorithm: string): ConnectConfig['algorithms'] {
  const names = algorithm === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [algorithm];
  return { serverHostKey: names as never };
}

export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Runs `/bin/sh -s` with `script` on its stdin and collects what comes back, bounded. */
export function runSession(target: SessionTarget, script: string, limits: SessionLimits): Promise<SessionResult> {
  return new Promise((resolve) => {
    const client = new Client();
    const pinned = Buffer.from(target.hostKey.publicKey, 'base64');
    let presented: Buffer | null = null;
    let sent = false;
    let settled = false;
    const out = new Collector(limits.maxStdoutBytes);
    const err = new Collector(limits.maxStderrBytes);
    let exitCode: number | null = null;
    let exitSignal: string | null = null;

    const finish = (result: SessionResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.removeAllListeners();
      client.on('error', () => undefined); // late socket errors after we are done are expected
      client.destroy();
      resolve(result);
    };
    const sentResult = (ending: 'closed' | 'timeout' | 'connection_lost', reason: string): SessionResult => ({
      stage: 'sent',
      ending,
      reason,
      stdout: out.bytes(),
      stdoutTotal: out.total,
      stderr: err.bytes(),
      stderrTotal: err.total,
      exitCode,
      exitSignal,
    });
    const timer = setTimeout(() => {
      if (sent) finish(sentResult('timeout', `no complete answer within ${limits.timeoutMs} ms`));
      else
        finish({
          stage: 'not_sent',
          code: 'connect_timeout',
          reason: `the session was not ready within ${limits.timeoutMs} ms`,
          retryable: true,
        });
    }, limits.timeoutMs);

    client.on('ready', () => {
      client.exec(REMOTE_COMMAND, (error: Error | undefined, stream: ClientChannel) => {
        if (error)
          return finish({
            stage: 'not_sent',
            code: 'exec_refused',
            reason: `the host refused the exec request: ${error.message}`,
            retryable: true,
          });
        stream.on('data', (chunk: Buffer) => out.add(chunk));
        stream.stderr.on('data', (chunk: Buffer) => err.add(chunk));
        stream.on('exit', (code: number | null, signal?: string) => {
          exitCode = typeof code === 'number' ? code : null;
          exitSignal = signal ?? null;
        });
        // sshd reports an exit status (or signal) before closing a channel whose program ended; a
        // channel closed without one was torn down with the connection.
        stream.on('close', () =>
          finish(
            exitCode !== null || exitSignal !== null
              ? sentResult('closed', 'the remote program ended')
              : sentResult('connection_lost', 'the channel closed without an exit status'),
          ),
        );
        sent = true;
        stream.end(script);
      });
    });
    client.on('error', (error: Error & { level?: string; code?: string }) => {
      if (sent) return finish(sentResult('connection_lost', `the session failed after the program was sent: ${error.message}`));
      finish(notSent(error, presented, target));
    });
    client.on('close', () => {
      if (sent) finish(sentResult('connection_lost', 'the connection closed before the remote program ended'));
      else
        finish({
          stage: 'not_sent',
          code: 'connect_failed',
          reason: 'the connection closed before the session was ready',
          retryable: true,
        });
    });

    try {
      client.connect({
        host: target.host,
        port: target.port,
        username: target.user,
        privateKey: target.privateKey,
        readyTimeout: Math.min(limits.connectTimeoutMs, limits.timeoutMs),
        // A dead peer is noticed in ~15 s instead of at the contract's (long) timeout.
        keepaliveInterval: 5_000,
        keepaliveCountMax: 3,
        algorithms: hostKeyAlgorithms(target.hostKey.algorithm),
        hostVerifier: (key: Buffer) => {
          presented = key;
          return key.equals(pinned);
        },
      });
    } catch (error) {
      // ssh2 parses the private key synchronously; the message never contains the key itself.
      finish({
        stage: 'not_sent',
        code: 'bad_credential',
        reason: `the private key could not be used: ${(error as Error).message}`,
        retryable: false,
      });
    }
  });
}

function notSent(error: Error & { level?: string; code?: string }, presented: Buffer | null, target: SessionTarget): SessionResult {
  const pinned = Buffer.from(target.hostKey.publicKey, 'base64');
  if (presented && !presented.equals(pinned)) {
    return {
      stage: 'not_sent',
      code: 'host_key_mismatch',
      reason: `host key mismatch for ${target.host}:${target.port}: pinned ${target.hostKey.algorithm} ${fingerprintOf(pinned)}, the host presented ${fingerprintOf(presented)}; nothing was sent`,
      retryable: false,
    };
  }
  if (error.level === 'client-authentication') {
    return {
      stage: 'not_sent',
      code: 'auth_failed',
      reason: `the host refused the key for user ${target.user}: ${error.message}`,
      retryable: false,
    };
  }
  if (error.level === 'client-timeout') return { stage: 'not_sent', code: 'connect_timeout', reason: error.message, retryable: true };
  if (/no matching host key format/i.test(error.message)) {
    return {
      stage: 'not_sent',
      code: 'host_key_mismatch',
      reason: `the host offers no ${target.hostKey.algorithm} host key (the pinned key's type): ${error.message}`,
      retryable: false,
    };
  }
  return { stage: 'not_sent', code: 'connect_failed', reason: `${error.code ? `${error.code}: ` : ''}${error.message}`, retryable: true };
}

/** Keeps the first `limit` bytes and counts the rest. */
class Collector {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept >= this.limit) return;
    const part = chunk.subarray(0, this.limit - this.kept);
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
