export type TestTargetErrorCode = 'invalid_behavior' | 'invalid_arguments' | 'control_failed';

/** A typed error: `code` for programs, `message` for the person reading the test output. */
export class TestTargetError extends Error {
  constructor(
    readonly code: TestTargetErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TestTargetError';
  }
}
