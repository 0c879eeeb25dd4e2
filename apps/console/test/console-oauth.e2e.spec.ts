import { freePort } from '@onceport/gateway-harness';
import { type TestAuthorizationServer, startTestAuthorizationServer } from '@onceport/service-kit/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { CARD, type ConsoleUnderTest, eventually, startConsoleUnderTest } from './console-under-test';

const ADMIN_AUDIENCE = 'http://127.0.0.1/onceport-admin';
const CLIENT = { id: 'onceport-console', secret: 'console-secret-7fq2' };

/**
 * Operators sign in to the console with OAuth: a real authorization server (oidc-provider, its
 * development login form) with a client for the console, the four services as processes whose
 * actors file names the issuer and the operators who are admins, the console as its own process, a
 * real chromium. The token stays on the console service; the services accept it as the admin's.
 */
describe('the web console: operators sign in with OAuth', () => {
  let as: TestAuthorizationServer;
  let env: ConsoleUnderTest;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    as = await startTestAuthorizationServer({
      clients: [],
      codeClients: [
        {
          clientId: CLIENT.id,
          secret: CLIENT.secret,
          redirectUris: ['http://127.0.0.1/api/session/oauth/callback'],
          scope: 'openid onceport:admin',
        },
      ],
      scopes: ['onceport:admin'],
    });
    // The issuer matches a loopback redirect on any port (RFC 8252), but the console must know its own.
    const port = await freePort();
    env = await startConsoleUnderTest({
      oauth: {
        section: { issuer: as.issuer, resource: 'http://127.0.0.1/mcp', admin_audience: ADMIN_AUDIENCE },
        adminSubjects: ['alice'],
      },
      consoleEnv: {
        PORT: String(port),
        ONCEPORT_CONSOLE_OAUTH_ISSUER: as.issuer,
        ONCEPORT_CONSOLE_OAUTH_CLIENT_ID: CLIENT.id,
        ONCEPORT_CONSOLE_OAUTH_CLIENT_SECRET: CLIENT.secret,
        ONCEPORT_CONSOLE_OAUTH_REDIRECT_URL: `http://127.0.0.1:${port}/api/session/oauth/callback`,
        ONCEPORT_CONSOLE_OAUTH_RESOURCE: ADMIN_AUDIENCE,
        ONCEPORT_CONSOLE_OAUTH_NAME: 'Test SSO',
      },
    });
  }, 240_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await env?.stop();
    await as?.close();
  });

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return { context, page };
  }

  /** Through the issuer's development login form (any password) and its consent page, back to the console. */
  async function signInAs(page: Page, login: string): Promise<void> {
    await page.goto(env.console.url);
    await page.getByRole('link', { name: 'Sign in with Test SSO' }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  }

  it('an admin operator signs in at the issuer, decides an approval, and the decision is recorded as that admin', async () => {
    const { context, page } = await newPage();
    await signInAs(page, 'alice');
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    expect(new URL(page.url()).origin).toBe(env.console.url);

    // The token stays on the console service: the browser holds only the HttpOnly session cookie.
    const cookies = (await context.cookies()).filter((cookie) => cookie.name.startsWith('onceport_console'));
    expect(cookies).toEqual([expect.objectContaining({ name: 'onceport_console', httpOnly: true, sameSite: 'Strict' })]);
    const visible = await page.evaluate<string>(
      'JSON.stringify({ cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage } })',
    );
    expect(visible).not.toMatch(/eyJ[A-Za-z0-9_-]+\.eyJ/); // no JWT anywhere the page can read

    const call = await env.agentCall('charge_payment', {
      customer_id: 'cus_OAuthGrant',
      amount_cents: 4200,
      card_token: CARD,
      description: 'x',
    });
    expect(call.status).toBeLessThan(300);
    // The request reaches the authorization service over JetStream: wait for it there (a loaded machine may take a while), then in the page.
    const pending = await eventually(
      async () => {
        const answer = await fetch(`${env.gateway.authorizationUrl}/v1/admin/approvals`, {
          headers: { authorization: `Bearer ${env.adminKey}` },
        });
        return JSON.stringify(await answer.json());
      },
      (text) => text.includes(String(call.body['execution_id'])),
      60_000,
    );
    expect(pending).toContain(String(call.body['execution_id']));
    const card = page.locator('article.approval', { hasText: 'cus_OAuthGrant' });
    await card.getByLabel('Reason for your decision').fill('confirmed by the operator signed in with SSO');
    await card.getByRole('button', { name: 'Grant' }).click();
    await card.waitFor({ state: 'detached' });
    const executionId = String(call.body['execution_id']);
    const granted = await eventually(
      async () =>
        (
          await env.db.pool.query<{ data: { approver: string; reason: string } }>(
            `SELECT data FROM onceport.events WHERE stream_id = $1 AND event_type = 'ApprovalGranted'`,
            [`execution-${executionId}`],
          )
        ).rows,
      (rows) => rows.length > 0,
    );
    expect(granted.map((row) => row.data)).toEqual([
      expect.objectContaining({ approver: 'ops:test-admin', reason: 'confirmed by the operator signed in with SSO' }),
    ]);
    const done = await eventually(
      () => env.agentStatus(executionId),
      (s) => String(s['state']).startsWith('completed'),
    );
    expect(done['state']).toMatch(/^completed/);

    // Signing out ends the session: the old cookie opens nothing.
    const session = cookies[0]!.value;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with Test SSO' }).waitFor();
    const after = await fetch(`${env.console.url}/api/approvals`, { headers: { cookie: `onceport_console=${session}` } });
    expect(after.status).toBe(401);
  });

  it('an operator who is not an admin is refused with a clear message, and no session is opened', async () => {
    const { context, page } = await newPage();
    await signInAs(page, 'mallory');
    const alert = page.getByRole('alert').filter({ hasText: 'not an admin' });
    await alert.waitFor();
    expect(await alert.innerText()).toContain('"mallory" is not an admin of this installation');
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('onceport_console');
    await page.getByLabel('Admin key').waitFor(); // still on the sign-in page, the key form beside
  });

  it("the issuer's refusal (the operator cancels at the issuer) is shown plainly on the sign-in page", async () => {
    const { page } = await newPage();
    await page.goto(env.console.url);
    await page.getByRole('link', { name: 'Sign in with Test SSO' }).click();
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await page.getByRole('alert').filter({ hasText: 'refused the sign-in: access_denied' }).waitFor();
    // Told once: a reload shows the plain sign-in page.
    await page.reload();
    await page.getByLabel('Admin key').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
  });
});
