import { isOAuthWebUrl } from '@onceport/config';
import { z } from 'zod';

const oauthUrl = (expected: string) =>
  z
    .string()
    .max(2048)
    .refine((text) => isOAuthWebUrl(text, { query: false }), { error: expected });

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}( [\x21\x23-\x5b\x5d-\x7e]{1,128}){0,31}$/;

/**
 * Operators' sign-in with OAuth (authorization code + PKCE), beside admin keys. Without an issuer
 * the console takes admin keys only. The services accept the token when the actors file's `oauth:`
 * names the same issuer and its `admin_audience` is the resource asked for here.
 */
export const consoleOAuthEnvShape = {
  /** The authorization server's issuer (its metadata is discovered from it). */
  ONCEPORT_CONSOLE_OAUTH_ISSUER: oauthUrl('the issuer: an https URL without query or fragment (http only on a loopback host)').optional(),
  /** The console's client id at the issuer. */
  ONCEPORT_CONSOLE_OAUTH_CLIENT_ID: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[\x21-\x7e]+$/, { error: 'visible ASCII, no spaces' })
    .optional(),
  /** Its secret, for a confidential client (client_secret_basic); none: a public client (PKCE only). */
  ONCEPORT_CONSOLE_OAUTH_CLIENT_SECRET: z.string().min(1).max(1024).optional(),
  /** Where the issuer sends the operator back: this console's `/api/session/oauth/callback`, as registered. */
  ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL: oauthUrl(
    "the console's callback URL, e.g. https://console.example/api/session/oauth/callback",
  ).optional(),
  /** The scopes asked for: the services need onceport:admin. */
  ONCEPORT_CONSOLE_OAUTH_SCOPE: z.string().regex(SCOPE, { error: 'space-separated OAuth scopes' }).default('openid onceport:admin'),
  /** The resource (RFC 8707) the token is for: the actors file's oauth.admin_audience (its resource by default). */
  ONCEPORT_CONSOLE_OAUTH_RESOURCE: oauthUrl('an https URL without query or fragment (http only on a loopback host)').optional(),
  /** What the sign-in button names; default: the issuer's host. */
  ONCEPORT_CONSOLE_OAUTH_NAME: z.string().min(1).max(60).optional(),
};
