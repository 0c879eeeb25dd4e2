/** Bytes of one output stream as read from the marker: at most the contract's cap. */
export interface CapturedOutput {
  readonly bytes: Buffer;
  /** Size of the whole file on the host; larger than `bytes.length` when the cap cut it. */
  readonly total: number;
}

/** What a marker says about one execution id (see marker-wrapper.ts). */
export type MarkerReport =
  | { readonly state: 'absent' }
  | { readonly state: 'running'; readonly startedAt: string | null }
  | {
      readonly state: 'completed';
      readonly exitStatus: number;
      readonly startedAt: string | null;
      readonly finishedAt: string | null;
      readonly stdout: CapturedOutput;
      readonly stderr: CapturedOutput;
    }
  | { readonly state: 'unreadable'; readonly why: string };

/** What the wrapper printed, in order: the run's own lines, then the report. */
export interface WrapperReply {
  /** `error <what>`: no marker could be made, so nothing ran. */
  readonly error: string | null;
  /** `refused already-started`: the marker existed; this start ran nothing. */
  readonly refused: boolean;
  readonly started: boolean;
  /** Null until `end` was read: a report cut short is no report. */
  readonly report: MarkerReport | null;
}

const PREFIX = 'onceport-marker ';

/**
 * Reads the wrapper's stdout strictly: a malformed line, a count that does not add up or a missing
 * `end` leaves `report` null, because a misread "absent" would let the same command run twice.
 */
export function parseWrapperReply(output: Buffer): WrapperReply {
  const reply = { error: null as string | null, refused: false, started: false, report: null as MarkerReport | null };
  const fields: Record<string, string> = {};
  const streams: Record<string, CapturedOutput> = {};
  let offset = 0;
  while (offset < output.length) {
    const newline = output.indexOf(0x0a, offset);
    if (newline === -1) break;
    const line = output.subarray(offset, newline).toString('utf8');
    offset = newline + 1;
    if (!line.startsWith(PREFIX)) continue;
    const [word = '', ...rest] = line.slice(PREFIX.length).split(' ');
    const value = rest.join(' ');
    if (word === 'stdout' || word === 'stderr') {
      const [bytes, total] = rest.map(Number);
      if (!isCount(bytes) || !isCount(total) || bytes > total || offset + bytes > output.length) return reply;
      streams[word] = { bytes: Buffer.from(output.subarray(offset, offset + bytes)), total };
      offset += bytes;
    } else if (word === 'error') reply.error = value || 'unspecified';
    else if (word === 'refused') reply.refused = true;
    else if (word === 'started') reply.started = true;
    else if (word === 'end') {
      reply.report = reportOf(fields, streams);
      return reply;
    } else fields[word] = value;
  }
  return reply;
}

function reportOf(fields: Record<string, string>, streams: Record<string, CapturedOutput>): MarkerReport | null {
  const [state = '', ...why] = (fields['state'] ?? '').split(' ');
  const startedAt = fields['started-at'] || null;
  switch (state) {
    case 'absent':
      return { state };
    case 'running':
      return { state, startedAt };
    case 'unreadable':
      return { state, why: why.join(' ') || 'unspecified' };
    case 'completed': {
      const exit = fields['exit'] ?? '';
      const stdout = streams['stdout'];
      const stderr = streams['stderr'];
      // An exit file holding anything but a status (a full disk, a hand edit) cannot be trusted.
      if (!/^[0-9]{1,3}$/.test(exit.trim())) return { state: 'unreadable', why: `exit status ${JSON.stringify(exit)} is not a number` };
      if (!stdout || !stderr) return null;
      return { state, exitStatus: Number(exit.trim()), startedAt, finishedAt: fields['finished-at'] || null, stdout, stderr };
    }
    default:
      return null;
  }
}

function isCount(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0;
}
