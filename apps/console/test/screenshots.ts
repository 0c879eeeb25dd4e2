import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { AGENT_KEY, CARD, eventually, startConsoleUnderTest } from './console-under-test';

const OUT = resolve(__dirname, '../../../docs/console');

/**
 * Refreshes the console's screenshots in docs/console/ (`npx nx screenshots console`): the real
 * services and console started as the browser test starts them, a scene set up through the agents'
 * and admins' APIs (a pending approval, a review, a replayed run, an execution's trace, the vault), each page captured.
 */
async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const env = await startConsoleUnderTest();
  try {
    const laptop = await env.browser.newContext({ viewport: { width: 1280, height: 860 }, colorScheme: 'light' });
    const page = await laptop.newPage();
    page.setDefaultTimeout(30_000);
    const shot = (name: string, on: Page = page) => on.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });

    await page.goto(env.console.url);
    await page.getByLabel('Admin key').waitFor();
    await shot('sign-in');
    await page.getByLabel('Admin key').fill(env.adminKey);
    await page.keyboard.press('Enter');

    await runWithDivergence(env);
    await env.agentCall('charge_payment', {
      customer_id: 'cus_42',
      amount_cents: 4200,
      currency: 'EUR',
      card_token: CARD,
      description: 'renewal',
    });
    await page.locator('article.approval', { hasText: 'cus_42' }).waitFor();
    await shot('approvals');

    const phone = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.addCookies(await laptop.cookies());
    const small = await phone.newPage();
    await small.goto(`${env.console.url}/#/approvals`);
    await small.locator('article.approval', { hasText: 'cus_42' }).waitFor();
    await shot('approvals-phone', small);
    await phone.close();

    await env.seedHistory('ssh-needs-review-resolved');
    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.locator('article.review').waitFor();
    await shot('reviews');

    await page.goto(`${env.console.url}/#/runs/winter-campaign`);
    await page.locator('section.card', { hasText: 'Attempt 2' }).waitFor();
    await page.getByText('Attempt 3 may start').waitFor();
    await shot('run');

    await refundCampaign(env);
    await page.goto(`${env.console.url}/#/campaigns/refunds-fin-77/charge_payment`);
    await page.locator('article.approval').nth(2).waitFor();
    await shot('campaign');

    await page.goto(`${env.console.url}/#/runs`);
    await page.locator('table.runs-list tbody tr', { hasText: 'refunds-fin-77' }).waitFor();
    await shot('runs');

    // A recorded unknown outcome settled by probes: the five questions answered, the timeline.
    const unknown = await env.seedHistory('unknown-outcome-settled', 0);
    await page.goto(`${env.console.url}/#/executions/${unknown}`);
    await page.locator('ol.timeline > li[data-type="ResultDelivered"]').waitFor();
    await shot('execution');

    await page.getByRole('link', { name: 'Vault' }).click();
    await page.getByLabel('Reason for locking').fill('deploy key leaked');
    await page.getByRole('button', { name: 'Lock the vault' }).click();
    await page.getByRole('status').filter({ hasText: 'every new call is denied' }).waitFor();
    await shot('vault');
    await laptop.close();
    process.stdout.write(`screenshots written to ${OUT}\n`);
  } finally {
    await env.stop();
  }
}

/** A three-e-mail campaign, replayed as attempt 2 without one recipient: the divergence report names it. */
async function runWithDivergence(env: Awaited<ReturnType<typeof startConsoleUnderTest>>): Promise<void> {
  await fetch(`${env.gateway.intakeUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
    body: JSON.stringify({ run_id: 'winter-campaign', trigger: 'ticket:OPS-812' }),
  });
  const send = (recipient: string) =>
    env.agentCall(
      'send_email',
      { recipient, campaign_id: 'winter', subject: 'Winter sale', body: '…' },
      { run: { id: 'winter-campaign' }, wait_ms: 3000 },
    );
  const recipients = ['ana@example.com', 'bo@example.com', 'cy@example.com'];
  const ids = (await Promise.all(recipients.map(send))).map((call) => String(call.body['execution_id']));
  await eventually(
    () => Promise.all(ids.map((id) => env.agentStatus(id))),
    (states) => states.every((s) => String(s['state']).startsWith('completed')),
  );
  await fetch(`${env.gateway.intakeUrl}/v1/runs/winter-campaign/replays`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
    body: '{}',
  });
  await Promise.all(recipients.slice(0, 2).map(send));
}

/** A run's three refund charges, each waiting for approval: the campaign page grants them at once. */
async function refundCampaign(env: Awaited<ReturnType<typeof startConsoleUnderTest>>): Promise<void> {
  await fetch(`${env.gateway.intakeUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
    body: JSON.stringify({ run_id: 'refunds-fin-77', trigger: 'ticket:FIN-77' }),
  });
  for (const customer of ['cus_104', 'cus_233', 'cus_871'])
    await env.agentCall(
      'charge_payment',
      { customer_id: customer, amount_cents: 1500, currency: 'EUR', card_token: CARD, description: 'refund fee' },
      { run: { id: 'refunds-fin-77' } },
    );
}

main().catch((error: unknown) => {
  process.stderr.write(`console screenshots failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
