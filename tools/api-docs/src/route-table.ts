import 'reflect-metadata';
import { type DynamicModule, RequestMethod, type Type } from '@nestjs/common';
import { MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { PathsExplorer } from '@nestjs/core/router/paths-explorer';
import { PATTERN_EXTRAS_METADATA, PATTERN_METADATA } from '@nestjs/microservices/constants';
import { type EventConsumerDoc, type ServiceName } from '@onceport/api-docs';
import { CONSUMER_OPTIONS, type ConsumerOptions } from '@onceport/messaging';

type ModuleRef = DynamicModule | Type | Promise<DynamicModule> | { forwardRef: () => unknown };

/** Every controller class a module tree declares, reading Nest's module metadata as its scanner does. */
export function controllersOf(roots: readonly ModuleRef[]): Type[] {
  const seen = new Set<unknown>();
  const controllers = new Set<Type>();
  const visit = (ref: ModuleRef | undefined): void => {
    if (!ref || seen.has(ref) || ref instanceof Promise || 'forwardRef' in ref) return;
    seen.add(ref);
    const dynamic = 'module' in ref ? (ref as DynamicModule) : null;
    const moduleClass = dynamic ? dynamic.module : (ref as Type);
    const declared = (key: string): unknown[] => (Reflect.getMetadata(key, moduleClass) as unknown[] | undefined) ?? [];
    for (const controller of [...declared(MODULE_METADATA.CONTROLLERS), ...(dynamic?.controllers ?? [])])
      controllers.add(controller as Type);
    for (const child of [...declared(MODULE_METADATA.IMPORTS), ...(dynamic?.imports ?? [])]) visit(child as ModuleRef);
  };
  roots.forEach(visit);
  return [...controllers];
}

/**
 * The HTTP routes the controllers register, as `POST /v1/runs/{id}/replays` (Nest's `:id` and
 * `*suffix` in OpenAPI's braces; `@All()` as `ALL`), read with Nest's own PathsExplorer.
 */
export function routesOf(controllers: readonly Type[]): string[] {
  const explorer = new PathsExplorer(new MetadataScanner());
  const routes = controllers.flatMap((controller) => {
    const base = [(Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined) ?? ''].flat();
    return explorer
      .scanForPaths(Object.create(controller.prototype) as object, controller.prototype)
      .flatMap((route) =>
        base.flatMap((prefix) => route.path.map((path) => `${RequestMethod[route.requestMethod]} ${openApiPath(prefix, path)}`)),
      );
  });
  return [...new Set(routes)].sort();
}

function openApiPath(prefix: string, path: string): string {
  const joined = `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return joined.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

/** The `@ConsumeEvents` handlers of a service: its durable and the subjects each names. */
export function consumersOf(service: ServiceName, controllers: readonly Type[]): EventConsumerDoc[] {
  const scanner = new MetadataScanner();
  return controllers.flatMap((controller) =>
    scanner.getAllMethodNames(controller.prototype).flatMap((name) => {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      const subjects = Reflect.getMetadata(PATTERN_METADATA, handler) as string[] | undefined;
      const extras = Reflect.getMetadata(PATTERN_EXTRAS_METADATA, handler) as Record<string, ConsumerOptions> | undefined;
      const options = extras?.[CONSUMER_OPTIONS];
      return subjects && options ? [{ service, durable: options.durable, subjects: [...subjects].sort() }] : [];
    }),
  );
}
