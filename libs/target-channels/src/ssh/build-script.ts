import { MARKER_WRAPPER } from './marker-wrapper';
import { shellQuote } from './shell-quote';

/** The exec request: fixed, so nothing a caller supplies ever reaches the login shell. */
export const REMOTE_COMMAND = '/bin/sh -s';

/** The execution id becomes a path segment on the host, so it is held to its own shape here too. */
const EXECUTION_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Absolute, or `~/…` (expanded with $HOME by the wrapper on the host); only quote-safe characters. */
const MARKER_DIR = /^(?:~\/|\/)[A-Za-z0-9._/-]*$/;

export interface MarkerScriptInput {
  readonly mode: 'run' | 'probe';
  readonly markerDir: string;
  readonly executionId: string;
  readonly maxOutputBytes: number;
  /** Rendered argv (program first); ignored by a probe. */
  readonly argv: readonly string[];
}

/**
 * The program sent on stdin to `/bin/sh -s` (see marker-wrapper.ts for the protocol). Wrapped in one
 * function so that a script cut short by a dropped connection runs nothing at all.
 */
export function buildMarkerScript(input: MarkerScriptInput): string {
  if (!EXECUTION_ID.test(input.executionId)) throw new Error(`not an execution id: ${JSON.stringify(input.executionId)}`);
  if (!MARKER_DIR.test(input.markerDir) || input.markerDir.split('/').some((segment) => segment === '..' || segment === '.'))
    throw new Error(`not a marker directory: ${JSON.stringify(input.markerDir)}`);
  if (!Number.isSafeInteger(input.maxOutputBytes) || input.maxOutputBytes < 0) throw new Error(`not a byte count: ${input.maxOutputBytes}`);
  return [
    'onceport_main() {',
    `onceport_mode=${shellQuote(input.mode)}`,
    `onceport_marker_dir=${shellQuote(input.markerDir)}`,
    `onceport_execution_id=${shellQuote(input.executionId)}`,
    `onceport_max_output_bytes=${input.maxOutputBytes}`,
    setArgv(input.mode === 'run' ? input.argv : []),
    MARKER_WRAPPER,
    '}',
    'onceport_main',
    '',
  ].join('\n');
}

/**
 * For a host that runs no marker wrapper (`markers: false`): the same quoting and the same
 * all-or-nothing function, but the command's output and exit status come back over the channel.
 */
export function buildBareScript(argv: readonly string[]): string {
  return ['onceport_main() {', setArgv(argv), 'exec "$@" </dev/null', '}', 'onceport_main', ''].join('\n');
}

function setArgv(argv: readonly string[]): string {
  return argv.length === 0 ? 'set --' : `set -- ${argv.map(shellQuote).join(' ')}`;
}
