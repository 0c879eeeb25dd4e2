import type { OperationRecord } from '../types';

const isRedacted = (value: unknown): boolean => typeof value === 'object' && value !== null && '$hmac' in value;

/** An argument as an approver may see it: a sensitive one only as "redacted", never its value or its digest. */
function shown(value: unknown): string {
  if (isRedacted(value)) return 'redacted (sensitive)';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The canonical operation record: where it goes, with what credential, and the identity arguments. */
export function RecordView({ record }: { record: OperationRecord }) {
  const args = Object.entries(record.arguments ?? {});
  return (
    <div class="record">
      <table>
        <caption>Canonical record (model-written text is not part of it)</caption>
        <tbody>
          <tr>
            <th scope="row">target</th>
            <td>
              <code>{record.target}</code>
            </td>
          </tr>
          <tr>
            <th scope="row">method</th>
            <td>
              <code>{record.method}</code>
            </td>
          </tr>
          <tr>
            <th scope="row">credential</th>
            <td>
              <code>{record.credential_ref}</code>
            </td>
          </tr>
          <tr>
            <th scope="row">intent scope</th>
            <td>
              <code>{record.intent_scope}</code>
            </td>
          </tr>
          {args.map(([name, value]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td class={isRedacted(value) ? 'redacted' : undefined}>
                <code>{shown(value)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
