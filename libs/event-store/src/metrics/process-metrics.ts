import {
  Counter,
  Gauge,
  Histogram,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  register,
} from 'prom-client';

/**
 * The one way Onceport registers a metric: on prom-client's default registry (one per process,
 * what `GET /metrics` in the service kit serves), made once however many modules ask for it (the
 * embedded start composes four services in one process). Label values must come from closed sets
 * or the loaded contracts — never from a request, never an execution id.
 *
 * @example const accepted = processCounter({ name: 'onceport_executions_accepted_total', help: '…', labelNames: ['tool'] });
 */
export function processCounter<L extends string>(config: CounterConfiguration<L>): Counter<L> {
  return existing<Counter<L>>(config.name) ?? new Counter(config);
}

export function processGauge<L extends string>(config: GaugeConfiguration<L>): Gauge<L> {
  return existing<Gauge<L>>(config.name) ?? new Gauge(config);
}

export function processHistogram<L extends string>(config: HistogramConfiguration<L>): Histogram<L> {
  return existing<Histogram<L>>(config.name) ?? new Histogram(config);
}

function existing<T>(name: string): T | undefined {
  return register.getSingleMetric(name) as T | undefined;
}

/** Seconds a request to a target or a probe takes: 5 ms to 2 min. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Seconds something waits for a person or a settlement: 1 s to 1 day. */
export const WAIT_BUCKETS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600];

/** Seconds between a commit and its publication: 1 ms to 1 min. */
export const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
