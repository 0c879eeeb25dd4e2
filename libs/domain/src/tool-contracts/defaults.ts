import type { EffectClass } from '@onceport/contracts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MIB = 1024 * 1024;

/**
 * How long an unfinished or undelivered execution stays matchable when the contract is silent.
 * Read-only calls are cheap to repeat, so they match briefly; the more harm a duplicate can do,
 * the longer a retry must find the first attempt (an irreversible call a week later is still
 * more likely a lost response than a new intent).
 */
export const DEFAULT_CORRELATION_WINDOW_MS: Readonly<Record<EffectClass, number>> = {
  none: 1 * MINUTE,
  idempotent: 24 * HOUR,
  conditional: 1 * HOUR,
  irreversible: 7 * DAY,
  remote_command: 24 * HOUR,
};

export const HTTP_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 1 * MIB,
} as const;

/** An MCP upstream and its tools (DESIGN.md §9), when the contract file is silent. */
export const MCP_DEFAULTS = {
  /** A third-party server's tool (a search, a file write through a child process) may take longer than one API request. */
  timeoutMs: 30_000,
  maxResultBytes: HTTP_DEFAULTS.maxResponseBytes,
  /** Spawning a stdio server (often `npx`) and the discover/initialize handshake. */
  connectTimeoutMs: 10_000,
} as const;

export const SSH_DEFAULTS = {
  port: 22,
  /**
   * Under the login user's home (expanded on the host): a `/tmp` directory is wiped by many reboots
   * (a wiped marker reads "never started" and the command would run again), and any local user can
   * create it first.
   */
  markerDir: '~/.onceport/markers',
  /** Remote commands (migrations) run longer than API calls, but stay bounded. */
  timeoutMs: 60_000,
  maxOutputBytes: 1 * MIB,
} as const;

/** A tool name as MCP accepts it. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** An upstream's name, as tools of the same file refer to it (`target.upstream`). */
export const UPSTREAM_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * A tool name on an upstream, by the MCP tool-name rules (2025-11-25: 1–128 characters, letters,
 * digits, `_`, `-` and `.`). Wider than `TOOL_NAME_PATTERN`: it names their tool, not ours.
 */
export const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** An environment variable name as POSIX shells accept it. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Argument names appear in `{placeholders}` and JSON paths, so they stay identifier-like. */
export const ARGUMENT_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Reserved for probe templates, so it cannot also be an argument. */
export const EXECUTION_ID_PLACEHOLDER = 'execution_id';
