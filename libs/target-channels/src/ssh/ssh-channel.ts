import type { JsonValue } from '@onceport/contracts';
import type { SshTarget, SshToolContract } from '@onceport/domain';
import { buildBareScript, buildMarkerScript } from './build-script';
import { type MarkerReport, parseWrapperReply } from './marker-report';
import { outputDocument } from './output-document';
import { renderArgv } from './render-argv';
import type { SshFailedBeforeSend, SshOutcome } from './ssh-outcome';
import { type SessionLimits, type SessionResult, type SessionTarget, runSession } from './ssh-session';

export interface SshSendInput {
  readonly contract: SshToolContract;
  /** Names the marker on the host. */
  readonly executionId: string;
  readonly arguments: Readonly<Record<string, JsonValue>>;
  /** The private key resolved from `credentialRef`; null when the contract names none. */
  readonly credential: string | null;
}

/** A probe read the marker, or could not reach it (worth asking again later). */
export type MarkerProbe =
  { readonly kind: 'read'; readonly report: MarkerReport } | { readonly kind: 'unreachable'; readonly reason: string };

export interface SshChannelOptions {
  /** Default 10 s (bounded by the contract's timeout). */
  readonly connectTimeoutMs?: number;
  /** How long a probe session may take. Default 30 s. */
  readonly probeTimeoutMs?: number;
}

/** Room for the report's own lines around the two capped outputs. */
const REPORT_OVERHEAD_BYTES = 64 * 1024;

/**
 * The SSH channel of the dispatcher and the reconciler (DESIGN.md §9): one session per command, the
 * host key pinned, the argv quoted, and every run guarded by the durable marker protocol.
 *
 * @example
 * const ssh = new SshChannel();
 * const outcome = await ssh.send({ contract, executionId, arguments: args, credential: privateKey });
 * const probe = await ssh.probe({ contract, executionId, arguments: args, credential: privateKey });
 */
export class SshChannel {
  constructor(private readonly options: SshChannelOptions = {}) {}

  async send(input: SshSendInput): Promise<SshOutcome> {
    const { target } = input.contract;
    const refused = missingCredential(input);
    if (refused) return refused;
    const argv = renderArgv(input.contract, input.arguments);
    if (!argv.ok) return { kind: 'failed_before_send', code: 'bad_arguments', reason: argv.reason, retryable: false };
    const script = target.markers
      ? buildMarkerScript({
          mode: 'run',
          markerDir: target.markerDir,
          executionId: input.executionId,
          maxOutputBytes: target.maxOutputBytes,
          argv: argv.argv,
        })
      : buildBareScript(argv.argv);
    const result = await runSession(this.sessionTarget(input), script, this.limits(input.contract, target.timeoutMs));
    return target.markers ? classifyMarkedRun(result, target) : classifyBareRun(result);
  }

  /** Reads the marker of `executionId`; never starts anything. */
  async probe(input: SshSendInput): Promise<MarkerProbe> {
    const { target } = input.contract;
    if (!target.markers)
      return { kind: 'read', report: { state: 'unreadable', why: 'the tool runs without the marker protocol (markers: false)' } };
    const refused = missingCredential(input);
    if (refused) return { kind: 'unreachable', reason: refused.reason };
    const script = buildMarkerScript({
      mode: 'probe',
      markerDir: target.markerDir,
      executionId: input.executionId,
      maxOutputBytes: target.maxOutputBytes,
      argv: [],
    });
    const result = await runSession(this.sessionTarget(input), script, this.limits(input.contract, this.options.probeTimeoutMs ?? 30_000));
    if (result.stage === 'not_sent') return { kind: 'unreachable', reason: `${result.code}: ${result.reason}` };
    const reply = parseWrapperReply(result.stdout);
    if (reply.report) return { kind: 'read', report: reply.report };
    return { kind: 'unreachable', reason: `the probe got no complete marker report (${result.ending}: ${result.reason})` };
  }

  private sessionTarget(input: SshSendInput): SessionTarget {
    const { host, port, user, hostKey } = input.contract.target;
    return { host, port, user, hostKey, privateKey: input.credential ?? '' };
  }

  private limits(contract: SshToolContract, timeoutMs: number): SessionLimits {
    const cap = contract.target.maxOutputBytes;
    return {
      timeoutMs,
      connectTimeoutMs: this.options.connectTimeoutMs ?? 10_000,
      maxStdoutBytes: contract.target.markers ? 2 * cap + REPORT_OVERHEAD_BYTES : cap,
      maxStderrBytes: contract.target.markers ? REPORT_OVERHEAD_BYTES : cap,
    };
  }
}

function missingCredential(input: SshSendInput): SshFailedBeforeSend | null {
  if (input.credential !== null && input.credential.trim() !== '') return null;
  return {
    kind: 'failed_before_send',
    code: 'missing_credential',
    reason: 'an SSH tool needs a credential_ref naming its private key',
    retryable: false,
  };
}

/** Reads a marker-guarded run: only a complete report is an observed outcome. */
export function classifyMarkedRun(result: SessionResult, target: Pick<SshTarget, 'host' | 'user' | 'markerDir' | 'timeoutMs'>): SshOutcome {
  const { timeoutMs } = target;
  if (result.stage === 'not_sent')
    return { kind: 'failed_before_send', code: result.code, reason: result.reason, retryable: result.retryable };
  const reply = parseWrapperReply(result.stdout);
  if (reply.error === 'marker-dir-unsafe' && !reply.started) return unsafeMarkerDir(target);
  if (reply.error !== null && !reply.started) {
    return {
      kind: 'failed_before_send',
      code: 'marker_unavailable',
      reason: `the marker could not be made on the host (${reply.error}): nothing ran`,
      retryable: false,
    };
  }
  if (reply.refused) {
    return {
      kind: 'unknown',
      code: 'already_started',
      reason: 'the host refused a second start: the marker for this execution id exists, so an earlier attempt started it',
    };
  }
  const report = reply.report;
  if (report?.state === 'completed') {
    return { kind: 'observed', exitStatus: report.exitStatus, body: outputDocument(report), contentType: 'application/json' };
  }
  const stage = reply.started ? 'after the command started' : 'after the program was sent';
  if (result.ending === 'timeout') {
    return {
      kind: 'unknown',
      code: 'timeout',
      reason: `no result within the contract's ${timeoutMs} ms ${stage}; the command may still be running and the marker will settle it`,
    };
  }
  if (result.ending === 'connection_lost') return { kind: 'unknown', code: 'connection_lost', reason: `${result.reason} (${stage})` };
  return {
    kind: 'unknown',
    code: 'no_report',
    reason: `the session ended ${stage} without a complete marker report${result.stderr.length ? `: ${result.stderr.toString('utf8').slice(0, 200)}` : ''}`,
  };
}

/**
 * The wrapper found the marker directory owned by someone else, writable by group or others, or a
 * symbolic link: a marker there could be renamed away and the next probe would read "never
 * started" for a command that ran. Not retried: the host has to be fixed first.
 */
function unsafeMarkerDir(target: Pick<SshTarget, 'host' | 'user' | 'markerDir'>): SshFailedBeforeSend {
  const dir = target.markerDir;
  return {
    kind: 'failed_before_send',
    code: 'marker_dir_unsafe',
    reason: `the marker directory ${dir} on ${target.user}@${target.host} is not owned by ${target.user}, is writable by group or others, or is a symbolic link (marker-dir-unsafe): another user could move a marker away and make the command run twice, so nothing ran. Fix on the host: chown ${target.user} ${dir} && chmod go-w ${dir}, or point marker_dir at a private directory`,
    retryable: false,
  };
}

/** Without markers the channel itself carries the output and the exit status. */
export function classifyBareRun(result: SessionResult): SshOutcome {
  if (result.stage === 'not_sent')
    return { kind: 'failed_before_send', code: result.code, reason: result.reason, retryable: result.retryable };
  if (result.ending === 'closed' && result.exitCode !== null) {
    const body = outputDocument({
      exitStatus: result.exitCode,
      stdout: { bytes: result.stdout, total: result.stdoutTotal },
      stderr: { bytes: result.stderr, total: result.stderrTotal },
      startedAt: null,
      finishedAt: null,
    });
    return { kind: 'observed', exitStatus: result.exitCode, body, contentType: 'application/json' };
  }
  const how = result.exitSignal ? `ended by signal ${result.exitSignal}` : result.reason;
  return {
    kind: 'unknown',
    code: result.ending === 'timeout' ? 'timeout' : 'connection_lost',
    reason: `the command was sent and no exit status came back (${how})`,
  };
}
