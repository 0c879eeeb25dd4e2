import type { IncomingMessage } from 'node:http';

/** The sign-in under way (its transaction id): SameSite=Lax, so the issuer's redirect back brings it (Strict would not). */
export const SIGN_IN_COOKIE = 'onceport_console_signin';
const PATH = '/api/session';

export function signInIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers.cookie;
  if (!header || header.length > 8_192) return undefined;
  for (const part of header.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SIGN_IN_COOKIE) return value.join('=');
  }
  return undefined;
}

export function signInCookie(id: string, maxAgeS: number, secure: boolean): string {
  return `${SIGN_IN_COOKIE}=${id}; HttpOnly; SameSite=Lax; Path=${PATH}; Max-Age=${maxAgeS}${secure ? '; Secure' : ''}`;
}

export function clearedSignInCookie(secure: boolean): string {
  return `${SIGN_IN_COOKIE}=; HttpOnly; SameSite=Lax; Path=${PATH}; Max-Age=0${secure ? '; Secure' : ''}`;
}
