import { Migration } from '@mikro-orm/migrations';

/**
 * The first completed response to a client `Idempotency-Key` (IETF httpapi draft): status and the
 * exact body bytes, so a reuse after completion gets byte for byte what the first caller got, not
 * an answer rebuilt from whatever the execution says today. One row per actor and key, never updated.
 */
export class RestIdempotentResponsesMigration extends Migration {
  static readonly id = '202-rest-idempotent-responses';

  override up(): void {
    this.addSql(`
CREATE TABLE onceport.rest_idempotent_responses (
  actor            text        NOT NULL,
  idempotency_key  text        NOT NULL,
  execution_id     text        NOT NULL,
  status           integer     NOT NULL,
  body             text        NOT NULL,
  stored_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (actor, idempotency_key)
);
`);
  }
}
