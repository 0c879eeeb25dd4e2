import { logLevel } from '@onceport/config';
import { listenHost, serverLimitsEnvShape } from '@onceport/service-kit';
import { z } from 'zod';
import { consoleOAuthEnvShape } from './oauth/console-oauth-env';

const serviceUrl = (fallback: string) =>
  z
    .url({ protocol: /^https?$/, error: 'an http(s) URL of the service' })
    .default(fallback)
    .transform((url) => url.replace(/\/+$/, ''));

/** The console's environment, validated once at start; the services' URLs read like the CLI's (tools/cli/src/cli/settings.ts). */
export const consoleEnvShape = {
  PORT: z.coerce.number().int().min(0).max(65535).default(3005),
  HOST: listenHost,
  LOG_LEVEL: logLevel,
  ONCEPORT_INTAKE_URL: serviceUrl('http://127.0.0.1:3001'),
  ONCEPORT_AUTHORIZATION_URL: serviceUrl('http://127.0.0.1:3002'),
  ONCEPORT_RECONCILER_URL: serviceUrl('http://127.0.0.1:3004'),
  /** The built front end (`nx build console`); default: dist/console/web in the workspace. */
  ONCEPORT_CONSOLE_ASSETS_DIR: z.string().min(1).max(4096).optional(),
  /** A signed-in operator idle this long signs in again. */
  ONCEPORT_CONSOLE_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .min(60_000)
    .max(7 * 24 * 3_600_000)
    .default(8 * 3_600_000),
  /** Set `true` behind TLS: the session cookie is then `Secure`. */
  ONCEPORT_CONSOLE_SECURE_COOKIE: z.enum(['true', 'false']).default('false'),
  /** How often the live feed asks the services what changed. */
  ONCEPORT_CONSOLE_POLL_MS: z.coerce.number().int().min(200).max(60_000).default(1_000),
  /** A trace's page in the tracing backend, `{trace_id}` replaced (e.g. `https://jaeger.example/trace/{trace_id}`). */
  ONCEPORT_TRACE_UI_URL: z.string().min(1).max(2048).includes('{trace_id}', { error: 'a URL with {trace_id} in it' }).optional(),
  ...consoleOAuthEnvShape,
  ...serverLimitsEnvShape,
};

/** The shape, and the variables that only make sense together (OAuth sign-in) checked together. */
export const consoleEnvSchema = z.object(consoleEnvShape).superRefine((env, ctx) => {
  if (!env.ONCEPORT_CONSOLE_OAUTH_ISSUER) return;
  for (const name of ['ONCEPORT_CONSOLE_OAUTH_CLIENT_ID', 'ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL'] as const) {
    if (!env[name])
      ctx.addIssue({ code: 'custom', path: [name], message: 'set, with ONCEPORT_CONSOLE_OAUTH_ISSUER (operators sign in with OAuth)' });
  }
});

export type ConsoleEnv = z.output<typeof consoleEnvSchema>;
export const CONSOLE_ENV = Symbol('CONSOLE_ENV');
