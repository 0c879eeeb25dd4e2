import type { JsonValue } from '@onceport/contracts';
import { type SshToolContract, parseTemplate, validateArguments } from '@onceport/domain';

export type RenderedArgv = { readonly ok: true; readonly argv: readonly string[] } | { readonly ok: false; readonly reason: string };

/**
 * The argv a call runs with: one element per template element, each placeholder replaced by its
 * argument's value. The arguments are checked against the contract's schema once more here (the
 * channel trusts nobody upstream with a shell on the other end), and a value starting with `-` is
 * refused unless the contract lists its argument in `allow_dash_arguments`: `--delete-all` passed
 * as a "name" would otherwise be read as an option by the program.
 */
export function renderArgv(contract: SshToolContract, args: Readonly<Record<string, JsonValue>>): RenderedArgv {
  const validation = validateArguments(contract, args);
  if (!validation.ok)
    return { ok: false, reason: `arguments do not match the contract: ${validation.issues.map((i) => i.message).join('; ')}` };
  const values = validation.value;
  const argv: string[] = [];
  for (const element of contract.target.argv) {
    let rendered = '';
    for (const part of parseTemplate(element).parts) {
      if ('literal' in part) {
        rendered += part.literal;
        continue;
      }
      const value = values[part.argument];
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        return { ok: false, reason: `argument "${part.argument}" has no scalar value for argv element ${JSON.stringify(element)}` };
      }
      const text = String(value);
      if (text.startsWith('-') && !contract.target.allowDashArguments.includes(part.argument)) {
        return {
          ok: false,
          reason: `argument "${part.argument}" starts with "-" and the contract does not allow that (allow_dash_arguments): it could be read as an option`,
        };
      }
      if (text.includes('\0'))
        return { ok: false, reason: `argument "${part.argument}" contains a NUL character, which no argv element can hold` };
      rendered += text;
    }
    argv.push(rendered);
  }
  return { ok: true, argv };
}
