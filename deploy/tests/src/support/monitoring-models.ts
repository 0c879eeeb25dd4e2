import { z } from 'zod';

/*
 * The Prometheus Operator's two kinds the manifests use. kubernetes-models ships no schema for
 * them, so the fields we write are checked strictly here (a misspelled key fails like it would in
 * the operator's CRD validation), and the rules themselves by promtool in monitoring.int.spec.ts.
 */
const metadata = z
  .object({ name: z.string().min(1), namespace: z.string().optional(), labels: z.record(z.string(), z.string()).optional() })
  .strict();
const duration = z.string().regex(/^(\d+(ms|s|m|h|d|w|y))+$/);

const rule = z
  .object({
    record: z.string().optional(),
    alert: z.string().optional(),
    expr: z.string().min(1),
    for: duration.optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .refine((r) => (r.record === undefined) !== (r.alert === undefined), 'a rule is either a record or an alert');

export const PrometheusRuleSchema = z
  .object({
    apiVersion: z.literal('monitoring.coreos.com/v1'),
    kind: z.literal('PrometheusRule'),
    metadata,
    spec: z
      .object({
        groups: z.array(z.object({ name: z.string().min(1), interval: duration.optional(), rules: z.array(rule).min(1) }).strict()).min(1),
      })
      .strict(),
  })
  .strict();

const relabeling = z
  .object({
    sourceLabels: z.array(z.string()).optional(),
    targetLabel: z.string().optional(),
    regex: z.string().optional(),
    action: z.string().optional(),
  })
  .strict();

export const PodMonitorSchema = z
  .object({
    apiVersion: z.literal('monitoring.coreos.com/v1'),
    kind: z.literal('PodMonitor'),
    metadata,
    spec: z
      .object({
        selector: z.object({ matchLabels: z.record(z.string(), z.string()) }).strict(),
        podMetricsEndpoints: z
          .array(
            z
              .object({ port: z.string(), path: z.string(), interval: duration.optional(), relabelings: z.array(relabeling).optional() })
              .strict(),
          )
          .min(1),
      })
      .strict(),
  })
  .strict();

/** A model for `schemaErrors`: validate() throws the zod issues with their paths. */
function modelOf(schema: z.ZodType): { prototype: { validate(): void } } {
  return {
    prototype: {
      validate(this: unknown): void {
        const parsed = schema.safeParse(JSON.parse(JSON.stringify(this)));
        if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `/${i.path.join('/')}: ${i.message}`).join('; '));
      },
    },
  };
}

export const MONITORING_MODELS = {
  'monitoring.coreos.com/v1 PrometheusRule': modelOf(PrometheusRuleSchema),
  'monitoring.coreos.com/v1 PodMonitor': modelOf(PodMonitorSchema),
};
