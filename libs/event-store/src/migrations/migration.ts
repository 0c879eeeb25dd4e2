/** One schema step. `id` orders the steps and is recorded once applied; `sql` runs in one transaction. */
export interface Migration {
  readonly id: string;
  readonly sql: string;
}
