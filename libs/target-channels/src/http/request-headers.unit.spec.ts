import { DEFAULT_PRESENTATION, requestHeaders } from './request-headers';

const base = {
  staticHeaders: { Accept: 'application/json' },
  traceHeaders: {},
  presentation: DEFAULT_PRESENTATION,
  credential: 'tok',
  idempotency: { header: 'Idempotency-Key', value: 'exe_1' },
  jsonBody: true,
};

describe('requestHeaders', () => {
  it('layers static, trace and gateway-owned headers, the gateway winning', () => {
    const result = requestHeaders({
      ...base,
      traceHeaders: { traceparent: 't', authorization: 'x', 'idempotency-key': 'x', host: 'evil', 'bad name': 'v', tracestate: 'a\r\nb' },
    });

    expect(result).toEqual({
      headers: {
        accept: 'application/json',
        traceparent: 't',
        'content-type': 'application/json',
        authorization: 'Bearer tok',
        'idempotency-key': 'exe_1',
      },
    });
  });

  it.each(['', ' tok', 'to\nk', 'tok\u0000'])('refuses the credential %j without describing it', (credential) => {
    expect(requestHeaders({ ...base, credential })).toMatchObject({ kind: 'failed_before_send', code: 'bad_credential' });
  });

  it('sends no credential header when there is no credential', () => {
    expect(requestHeaders({ ...base, credential: null, idempotency: null, jsonBody: false })).toEqual({
      headers: { accept: 'application/json' },
    });
  });
});
