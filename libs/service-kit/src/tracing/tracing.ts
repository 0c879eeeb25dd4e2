import { type Context, ROOT_CONTEXT, type Span, SpanStatusCode, type Tracer, context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { withExecutionId } from '../logging/log-context';
import { FileSpanExporter } from './file-span-exporter';

const EXECUTION_ID_ATTRIBUTE = 'onceport.execution_id';

export interface TracingOptions {
  readonly serviceName: string;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` → OTLP/HTTP; `ONCEPORT_TRACE_FILE` → JSON lines; neither → no export. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface Tracing {
  readonly tracer: Tracer;
  shutdown(): Promise<void>;
}

let registered: NodeTracerProvider | null = null;

/** Sets up the process's tracer provider once; W3C trace context is how spans join across services. */
export function initTracing(options: TracingOptions): Tracing {
  const env = options.env ?? process.env;
  const exporters: SpanExporter[] = [];
  if (env['OTEL_EXPORTER_OTLP_ENDPOINT']) exporters.push(new OTLPTraceExporter());
  if (env['ONCEPORT_TRACE_FILE']) exporters.push(new FileSpanExporter(env['ONCEPORT_TRACE_FILE']));
  if (!registered) {
    registered = new NodeTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
      spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter, { scheduledDelayMillis: 200 })),
    });
    registered.register({ propagator: new W3CTraceContextPropagator() });
  }
  const provider = registered;
  return {
    tracer: trace.getTracer(`onceport.${options.serviceName}`),
    shutdown: () => provider.shutdown(),
  };
}

/** The trace context carried by an event (metadata or NATS headers), as a parent for new spans. */
export function contextFromTraceparent(traceparent: string | null | undefined, tracestate?: string | null): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent, ...(tracestate ? { tracestate } : {}) });
}

/** The traceparent/tracestate of the active span, to write into the events it causes. */
export function currentTraceContext(): { traceparent: string | null; tracestate: string | null } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return { traceparent: carrier['traceparent'] ?? null, tracestate: carrier['tracestate'] ?? null };
}

/**
 * Runs `work` in a span (child of `parent`), recording failure; the span ends when `work` settles.
 * A span about one execution (`onceport.execution_id`) puts its id on every log line written meanwhile.
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  parent: Context,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const executionId = attributes[EXECUTION_ID_ATTRIBUTE];
  if (typeof executionId === 'string') return withExecutionId(executionId, () => spanned(tracer, name, parent, attributes, work));
  return spanned(tracer, name, parent, attributes, work);
}

function spanned<T>(
  tracer: Tracer,
  name: string,
  parent: Context,
  attributes: Record<string, string | number | boolean>,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
