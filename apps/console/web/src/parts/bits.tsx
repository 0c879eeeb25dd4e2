import type { ComponentChildren } from 'preact';

/** A problem said where a screen reader announces it. */
export function ErrorNote({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** A time as the reader's clock shows it, with the exact instant kept for machines. */
export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const date = new Date(at);
  return <time dateTime={at}>{Number.isNaN(date.getTime()) ? at : date.toLocaleString()}</time>;
}

/** Label–value pairs (a description list). */
export function Facts({ rows }: { rows: readonly (readonly [string, ComponentChildren] | null | false)[] }) {
  return (
    <dl class="facts">
      {rows
        .filter((row): row is readonly [string, ComponentChildren] => Boolean(row))
        .map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.replace(/[^a-z_]/g, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

export function PageHeading({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-heading">
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {children}
    </header>
  );
}
