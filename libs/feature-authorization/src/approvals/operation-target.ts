import { type CanonicalOperationRecord, type JsonValue } from '@onceport/contracts';
import { type ToolContract, parseTemplate } from '@onceport/domain';

export type OperationTarget =
  | { readonly channel: 'http'; readonly method: string; readonly url: string }
  | {
      readonly channel: 'ssh';
      readonly host: string;
      readonly port: number;
      readonly user: string;
      readonly argv: readonly string[] | null;
    };

/**
 * Where the call goes, for the approver, built from the canonical record — so it shows only what
 * the fingerprint covers: a sensitive argument stays its HMAC (rendered `{name:hmac}`), and a
 * generated one (model-written text) is not there at all. The SSH argv needs the tool contract;
 * it is null when the tool is no longer declared.
 *
 * @example targetOf(state.facts.record, contracts.get(state.facts.tool))
 */
export function targetOf(record: CanonicalOperationRecord, contract: ToolContract | undefined): OperationTarget {
  if (record.channel === 'http') {
    const space = record.method.indexOf(' ');
    const method = space === -1 ? record.method : record.method.slice(0, space);
    const path = space === -1 ? '' : record.method.slice(space + 1);
    return { channel: 'http', method, url: `${record.target}${render(path, record.arguments, encodeURIComponent)}` };
  }
  const ssh = parseSshTarget(record.target);
  const argv =
    contract?.channel === 'ssh' ? contract.target.argv.map((element) => render(element, record.arguments, (value) => value)) : null;
  return { channel: 'ssh', ...ssh, argv };
}

/** Fills `{name}` placeholders with the record's scalar values; anything else stays visible as a placeholder. */
function render(template: string, args: Readonly<Record<string, JsonValue>>, encode: (value: string) => string): string {
  return parseTemplate(template)
    .parts.map((part) => {
      if ('literal' in part) return part.literal;
      const value = args[part.argument];
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return encode(String(value));
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && '$hmac' in value) return `{${part.argument}:hmac}`;
      return `{${part.argument}}`;
    })
    .join('');
}

/** `ssh://user@host:port` (IPv6 hosts in brackets), as `recordTarget` writes it. */
function parseSshTarget(target: string): { host: string; port: number; user: string } {
  const match = /^ssh:\/\/([^@]+)@(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
  if (!match) return { host: target, port: 22, user: '' };
  const host = match[2] as string;
  return { user: match[1] as string, host: host.startsWith('[') ? host.slice(1, -1) : host, port: Number(match[3]) };
}
