import { href } from '../router';

/** An execution id that opens its page (the timeline and the five questions). */
export function ExecutionLink({ id }: { id: string }) {
  return (
    <a href={href('executions', id)} aria-label={`Execution ${id}: open its trace`}>
      <code>{id}</code>
    </a>
  );
}
