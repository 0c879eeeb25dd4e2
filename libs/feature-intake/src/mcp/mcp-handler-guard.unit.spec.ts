import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { guarded } from './mcp-handler-guard';

function throwing(error: unknown): { handler: () => Promise<never>; logged: Record<string, unknown>[] } {
  const logged: Record<string, unknown>[] = [];
  const handler = guarded(
    'tools/call',
    (_level, _message, fields) => logged.push(fields),
    async () => {
      throw error;
    },
  );
  return { handler, logged };
}

describe('guarded: what a handler throws, as the client may see it', () => {
  it('an internal error (e.g. PostgreSQL) becomes a generic -32603 with a correlation id; the text and stack stay in the log', async () => {
    const { handler, logged } = throwing(new Error('duplicate key value violates unique constraint "events_stream_version_unique"'));
    const thrown = (await handler().catch((e: unknown) => e)) as ProtocolError;
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect(thrown.code).toBe(ProtocolErrorCode.InternalError);
    expect(thrown.message).not.toMatch(/duplicate|constraint|events_/);
    const correlationId = (thrown.data as { correlation_id: string }).correlation_id;
    expect(correlationId).toMatch(/^err_[0-9a-f-]{36}$/);
    expect(thrown.message).toContain(correlationId);
    expect(logged).toEqual([
      expect.objectContaining({
        correlation_id: correlationId,
        error: expect.stringContaining('events_stream_version_unique'),
        stack: expect.any(String),
      }),
    ]);
  });

  it('a schema refusal becomes -32602 naming the paths, not -32603 with a zod dump', async () => {
    const refusal = z.object({ arguments: z.record(z.string(), z.unknown()) }).safeParse({ arguments: [1, 2] });
    const { handler, logged } = throwing(refusal.error);
    const thrown = (await handler().catch((e: unknown) => e)) as ProtocolError;
    expect(thrown.code).toBe(ProtocolErrorCode.InvalidParams);
    expect((thrown.data as { violations: { path: string }[] }).violations.map((v) => v.path)).toEqual(['arguments']);
    expect(logged).toEqual([]);
  });

  it('a ProtocolError a handler meant for the client passes through unchanged', async () => {
    const meant = new ProtocolError(ProtocolErrorCode.InvalidParams, 'unknown tool "x"', { code: 'unknown_tool' });
    await expect(throwing(meant).handler()).rejects.toBe(meant);
  });
});
