import type { ArgumentIssue, KeyBinding } from '@onceport/domain';

/** The tool is not declared in any contract. No execution is created. */
export class UnknownToolError extends Error {
  readonly code = 'unknown_tool';
  constructor(
    readonly tool: string,
    known: readonly string[],
  ) {
    super(`unknown tool "${tool}"; this gateway offers: ${known.join(', ') || '(none)'}`);
    this.name = 'UnknownToolError';
  }
}

/** The arguments violate the tool contract's schema. No execution is created. */
export class InvalidArgumentsError extends Error {
  readonly code = 'invalid_arguments';
  constructor(
    readonly tool: string,
    readonly issues: readonly ArgumentIssue[],
  ) {
    super(`invalid arguments for ${tool}: ${issues.map((i) => i.message).join('; ')}`);
    this.name = 'InvalidArgumentsError';
  }
}

/** The execution does not exist for this caller (see {@link ExecutionOfAnotherActorError}). */
export class ExecutionNotFoundError extends Error {
  readonly code = 'execution_not_found';
  constructor(readonly executionId: string) {
    // The id is the client's text (a path segment, a tool argument): echoed at most 80 characters of it.
    super(`no execution ${executionId.length > 80 ? `${executionId.slice(0, 80)}…` : executionId} for this caller`);
    this.name = 'ExecutionNotFoundError';
  }
}

/**
 * The execution exists but belongs to another actor. A subclass, so every path that only says "not
 * found" (the MCP status tool, tasks) keeps saying that; REST answers it with 401 (wrong actor's key).
 */
export class ExecutionOfAnotherActorError extends ExecutionNotFoundError {
  constructor(executionId: string) {
    super(executionId);
    this.name = 'ExecutionOfAnotherActorError';
  }
}

/**
 * A REST `Idempotency-Key` another request bound first: this call accepted nothing (a new execution
 * binds its key in its acceptance's own commit), and is answered as a reuse of the key.
 */
export class IdempotencyKeyTakenError extends Error {
  readonly code = 'idempotency_key_taken';
  constructor(readonly binding: KeyBinding) {
    super(`the idempotency key is bound to execution ${binding.executionId}`);
    this.name = 'IdempotencyKeyTakenError';
  }
}
