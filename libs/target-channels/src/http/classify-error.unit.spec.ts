import { classifyError, DeadlineExceededError } from './classify-error';

const withCode = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('classifyError', () => {
  it('lets "was it written" decide the kind, whatever the error code says', () => {
    const refused = withCode('ECONNREFUSED');

    expect(classifyError(refused, false, false)).toMatchObject({ kind: 'failed_before_send', code: 'connect_refused', retryable: true });
    // The same code after a write (e.g. from a proxy) is still possibly delivered.
    expect(classifyError(refused, true, false)).toMatchObject({ kind: 'unknown', stage: 'request_written' });
  });

  it.each([
    ['UND_ERR_SOCKET', 'connection_lost'],
    ['ECONNRESET', 'connection_lost'],
    ['UND_ERR_HEADERS_TIMEOUT', 'headers_timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'body_timeout'],
    ['SOMETHING_NEW', 'response_error'],
  ])('names %s after a write as unknown %s', (code, expected) => {
    expect(classifyError(withCode(code), true, false)).toMatchObject({ kind: 'unknown', code: expected });
  });

  it.each([
    ['ENOTFOUND', 'dns_failure', true],
    ['UND_ERR_CONNECT_TIMEOUT', 'connect_timeout', true],
    ['UND_ERR_CLOSED', 'channel_closed', true],
    ['UND_ERR_INVALID_ARG', 'bad_request', false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls_failure', false],
    ['SOMETHING_NEW', 'connect_failed', true],
  ])('names %s before a write as %s', (code, expected, retryable) => {
    expect(classifyError(withCode(code), false, false)).toMatchObject({ kind: 'failed_before_send', code: expected, retryable });
  });

  it('tells our own deadline apart before and after the write', () => {
    const deadline = new DeadlineExceededError(100);

    expect(classifyError(deadline, false, false)).toMatchObject({ kind: 'failed_before_send', code: 'timeout_before_send' });
    expect(classifyError(deadline, true, true)).toMatchObject({ kind: 'unknown', code: 'timeout', stage: 'response_started' });
  });
});
