import { type K8sObject, schemaErrors } from './support/k8s-object';

const deployment = (container: Record<string, unknown>, spec: Record<string, unknown> = {}): K8sObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x', labels: { 'app.kubernetes.io/name': 'x', anything: 'goes' } },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: {
        metadata: { labels: { a: 'b' }, annotations: { free: 'form' } },
        spec: { containers: [{ name: 'c', image: 'i', ...container }] },
      },
      ...spec,
    },
  }) as K8sObject;

describe('schemaErrors: strict against the Kubernetes OpenAPI schema', () => {
  it('accepts a valid object with maps (labels, annotations, limits) and int-or-string ports', () => {
    const probe = { httpGet: { path: '/readyz', port: 'http' } };
    expect(
      schemaErrors(
        deployment({
          readinessProbe: probe,
          livenessProbe: { httpGet: { path: '/healthz', port: 3000 } },
          resources: { limits: { cpu: '500m', memory: '256Mi' } },
        }),
      ),
    ).toEqual([]);
  });

  it('names a misspelled container field by its path', () => {
    const errors = schemaErrors(deployment({ readinesProbe: { httpGet: { path: '/readyz', port: 'http' } } }));
    expect(errors).toEqual(['/spec/template/spec/containers/0/readinesProbe: unknown field (not in the apps/v1 Deployment schema)']);
  });

  it('names a misspelled field deep inside a known one, and at the top of a spec', () => {
    expect(schemaErrors(deployment({ securityContext: { runAsNonRot: true } }, { replica: 2 }))).toEqual([
      '/spec/replica: unknown field (not in the apps/v1 Deployment schema)',
      '/spec/template/spec/containers/0/securityContext/runAsNonRot: unknown field (not in the apps/v1 Deployment schema)',
    ]);
  });

  it('names a misspelled NetworkPolicy rule list', () => {
    const policy = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'n' },
      spec: { podSelector: {}, egres: [{}] },
    } as K8sObject;
    expect(schemaErrors(policy)).toEqual(['/spec/egres: unknown field (not in the networking.k8s.io/v1 NetworkPolicy schema)']);
  });

  it('still reports wrong types and unknown kinds', () => {
    expect(schemaErrors(deployment({}, { replicas: 'two' })).join('\n')).toMatch(/replicas/);
    expect(schemaErrors({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } })).toEqual([
      'no schema for v1 Secret (add it to MODELS)',
    ]);
  });
});
