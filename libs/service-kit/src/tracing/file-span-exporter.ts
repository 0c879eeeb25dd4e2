import { appendFileSync } from 'node:fs';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-node';

/**
 * Appends finished spans as JSON lines: lets tests (and a person without a collector) read the
 * spans of several processes from one file.
 */
export class FileSpanExporter implements SpanExporter {
  constructor(private readonly path: string) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    try {
      const lines = spans.map((span) =>
        JSON.stringify({
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
          parentSpanId: span.parentSpanContext?.spanId ?? null,
          name: span.name,
          service: span.resource.attributes['service.name'] ?? null,
          attributes: span.attributes,
          events: span.events.map((event) => ({ name: event.name, attributes: event.attributes ?? {} })),
          status: span.status,
        }),
      );
      if (lines.length > 0) appendFileSync(this.path, `${lines.join('\n')}\n`);
      resultCallback({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      resultCallback({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }

  /** Every export is written synchronously: nothing is left to flush. */
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
