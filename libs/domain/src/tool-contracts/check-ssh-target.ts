import { SSH_DEFAULTS } from './defaults';
import { parseDuration } from './duration';
import { describeValue, draft, type IssueDraft, type PathSegment } from './issue-path';
import { checkTemplate, type TemplateRules } from './check-template';
import type { RawSshTool } from './raw-tool-contract.schema';
import { parseHostKey, parseKnownHostsLine, type HostKeyResult } from './ssh-host-key';
import type { SshHostKey, SshTarget } from './tool-contract.types';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV6 = /^[0-9a-f:.]*:[0-9a-f:.]*$/;

export function checkSshTarget(
  raw: RawSshTool['target'],
  at: readonly PathSegment[],
  rules: TemplateRules,
  issues: IssueDraft[],
): SshTarget {
  const host = raw.host.toLowerCase();
  if (!HOST_NAME.test(host) && !IPV6.test(host)) {
    issues.push(
      draft('invalid_field', [...at, 'host'], describeValue(raw.host), 'a host name or IP address (no user@, no :port, no scheme)'),
    );
  }
  const port = raw.port ?? SSH_DEFAULTS.port;
  const hostKey = pinHostKey(raw, host, port, at, issues);

  const placeholders = new Set<string>();
  raw.argv.forEach((element, index) => {
    const parsed = checkTemplate(element, [...at, 'argv', index], rules, issues);
    parsed.placeholders.forEach((p) => placeholders.add(p));
    if (index === 0 && parsed.placeholders.length > 0) {
      // The program is part of the contract; letting an argument pick it is command injection.
      issues.push(
        draft(
          'invalid_template',
          [...at, 'argv', 0],
          `a placeholder in the program name (${element})`,
          'a fixed program as argv[0], e.g. /usr/local/bin/migrate',
        ),
      );
    }
  });

  const allowDash = raw.allow_dash_arguments ?? [];
  allowDash.forEach((name, index) => {
    if (!placeholders.has(name)) {
      issues.push(
        draft(
          'invalid_field',
          [...at, 'allow_dash_arguments', index],
          JSON.stringify(name),
          `an argument used as a placeholder in argv (${[...placeholders].join(' | ') || 'argv has none'})`,
        ),
      );
    }
  });

  return {
    host,
    port,
    user: raw.user,
    hostKey: hostKey ?? { algorithm: '', publicKey: '' },
    argv: raw.argv,
    allowDashArguments: allowDash,
    markerDir: raw.marker_dir ?? SSH_DEFAULTS.markerDir,
    timeoutMs: raw.timeout ? (parseDuration(raw.timeout) ?? 0) : SSH_DEFAULTS.timeoutMs,
    maxOutputBytes: raw.max_output_bytes ?? SSH_DEFAULTS.maxOutputBytes,
    markers: raw.markers ?? true,
  };
}

/** Exactly one pin: trust-on-first-use would make the first connection unverified. */
function pinHostKey(
  raw: RawSshTool['target'],
  host: string,
  port: number,
  at: readonly PathSegment[],
  issues: IssueDraft[],
): SshHostKey | null {
  if ((raw.host_key === undefined) === (raw.known_hosts === undefined)) {
    const found = raw.host_key === undefined ? 'neither host_key nor known_hosts' : 'both host_key and known_hosts';
    issues.push(
      draft(
        'host_key',
        [...at, 'host_key'],
        found,
        'exactly one of host_key ("ssh-ed25519 AAAA…") or known_hosts (one known_hosts line): host keys are pinned',
      ),
    );
    return null;
  }
  const field = raw.host_key !== undefined ? 'host_key' : 'known_hosts';
  const result: HostKeyResult =
    raw.host_key !== undefined ? parseHostKey(raw.host_key) : parseKnownHostsLine(raw.known_hosts ?? '', host, port);
  if (!result.ok) {
    issues.push(draft('host_key', [...at, field], result.found, result.expected));
    return null;
  }
  return result.key;
}
