import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations, expectNoAxeViolations } from './axe-audit';
import { AGENT_KEY, CARD, type ConsoleUnderTest, eventually, startConsoleUnderTest } from './console-under-test';

/**
 * The console driven in a real chromium against the real apps: the four services as processes over
 * JetStream and PostgreSQL, the console as its own process in front of them, the demo target
 * counting effects. Every wait is for a state (Playwright's auto-waiting locators, or a poll with a
 * deadline), never a pause.
 */
/** Where the console's Open trace links go: the tracing backend's page of a trace. */
const TRACE_UI = 'https://traces.example/trace/{trace_id}';

describe('the web console, in a browser, against the real services', () => {
  let env: ConsoleUnderTest;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    env = await startConsoleUnderTest({ consoleEnv: { ONCEPORT_TRACE_UI_URL: TRACE_UI } });
    context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
  }, 240_000);
  afterAll(async () => {
    await context?.close();
    await env?.stop();
  });

  const charges = (customer: string): number =>
    env.target.effects({ route: 'payments' }).filter((e) => (e.body as { customer_id?: string }).customer_id === customer).length;
  const charge = (customer: string) =>
    env.agentCall('charge_payment', { customer_id: customer, amount_cents: 4200, card_token: CARD, description: 'model-written' });
  const approvalCard = (customer: string) => page.locator('article.approval', { hasText: customer });
  // Browser-side code as strings: this program has no DOM types.
  const stillTheSamePage = () => page.evaluate<boolean>('window.marker === 42');

  it('signs in with an admin key from the keyboard; a wrong key is refused; the key stays out of the page', async () => {
    await page.goto(env.console.url);
    await page.getByLabel('Admin key').waitFor();
    // The audit can fail: an unlabelled field put in the page is found, then taken out again.
    await page.evaluate("document.body.insertAdjacentHTML('beforeend', '<input id=axe-probe>')");
    expect((await axeViolations(page)).map((finding) => finding.rule)).toContain('label');
    await page.evaluate("document.getElementById('axe-probe').remove()");
    await expectNoAxeViolations(page, 'sign-in');
    await page.getByLabel('Admin key').fill('adm_not-a-key');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'not an admin key' }).waitFor();

    await page.getByLabel('Admin key').fill(env.adminKey);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    const cookies = await context.cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: 'onceport_console', httpOnly: true, sameSite: 'Strict' })]);
    expect(cookies[0]!.value).not.toContain(env.adminKey);
    const visible = await page.evaluate<string>(
      'JSON.stringify({ cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage } })',
    );
    expect(visible).not.toContain(env.adminKey);
    expect(visible).not.toContain('onceport_console');
    await page.evaluate('window.marker = 42');
  });

  it('an approval arrives without a reload, shows the redacted record, and is granted in the page → one effect at the target', async () => {
    const call = await charge('cus_ConsoleGrant');
    expect(call.status).toBeLessThan(300);
    const card = approvalCard('cus_ConsoleGrant');
    // The first call through freshly started services (cold code paths, JetStream consumers settling in) took over 20 s at load 10.
    await card.waitFor({ timeout: 90_000 });
    expect(await stillTheSamePage()).toBe(true);
    const text = await card.innerText();
    expect(text).toContain('redacted (sensitive)');
    expect(text).toContain('agent:console');
    expect(text).toContain('POST');
    expect(await page.content()).not.toContain(CARD);
    await expectNoAxeViolations(page, 'approvals');

    await card.getByLabel('Reason for your decision').fill('customer confirmed by phone');
    await card.getByRole('button', { name: 'Grant' }).click();
    await card.waitFor({ state: 'detached' });
    const executionId = String(call.body['execution_id']);
    const done = await eventually(
      () => env.agentStatus(executionId),
      (s) => String(s['state']).startsWith('completed'),
    );
    expect(done['state']).toMatch(/^completed/);
    expect(charges('cus_ConsoleGrant')).toBe(1);

    // Decided, it shows with who decided and the known outcome once the execution settled.
    await page.getByLabel('Show').selectOption('granted');
    const granted = approvalCard('cus_ConsoleGrant');
    await granted.getByText('customer confirmed by phone').waitFor();
    await granted.getByText('target answered').waitFor();
    await page.getByLabel('Show').selectOption('pending');
  });

  it('a rejected approval → denied, no effect', async () => {
    const call = await charge('cus_ConsoleReject');
    const card = approvalCard('cus_ConsoleReject');
    await card.waitFor();
    await card.getByRole('button', { name: 'Reject' }).click();
    await card.getByRole('alert').filter({ hasText: 'reason is required' }).waitFor();
    await card.getByLabel('Reason for your decision').fill('wrong customer');
    await card.getByRole('button', { name: 'Reject' }).click();
    await card.waitFor({ state: 'detached' });
    const denied = await eventually(
      () => env.agentStatus(String(call.body['execution_id'])),
      (s) => s['state'] === 'denied',
    );
    expect(denied).toMatchObject({ state: 'denied', denial: { code: 'approval_rejected' } });
    expect(charges('cus_ConsoleReject')).toBe(0);
    expect(await stillTheSamePage()).toBe(true);
  });

  it('a review is resolved with a verdict and a reason', async () => {
    await page.getByRole('link', { name: 'Reviews' }).click();
    await page.getByRole('heading', { name: 'Reviews', level: 1 }).waitFor();
    const executionId = await env.seedHistory('ssh-needs-review-resolved');
    const card = page.locator(`article[data-execution="${executionId}"]`);
    await card.waitFor(); // arrives on the live feed
    await expectNoAxeViolations(page, 'reviews');
    await card.getByLabel('It did not happen (not applied)').check();
    await card.getByLabel('Reason for the verdict').fill('checked the host: the migration never ran');
    await card.getByRole('button', { name: 'Resolve' }).click();
    await card.waitFor({ state: 'detached' });
    const reviews = await fetch(`${env.gateway.reconcilerUrl}/v1/admin/reviews`, { headers: { authorization: `Bearer ${env.adminKey}` } });
    expect(JSON.stringify(await reviews.json())).not.toContain(executionId);
    const events = await env.db.pool.query<{ data: { resolution: string; reviewer: string } }>(
      `SELECT data FROM onceport.events WHERE stream_id = $1 AND event_type = 'ReviewResolved'`,
      [`execution-${executionId}`],
    );
    expect(events.rows.map((row) => row.data)).toEqual([
      expect.objectContaining({ resolution: 'not_applied', reviewer: 'ops:test-admin' }),
    ]);
  });

  it("a run's divergence: what attempt 1 did and attempt 2 did not ask for again is shown", async () => {
    const opened = await fetch(`${env.gateway.intakeUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
      body: JSON.stringify({ run_id: 'console-campaign', trigger: 'schedule:2026-12-02' }),
    });
    expect(opened.status).toBe(201);
    const send = (recipient: string, draft: string) =>
      env.agentCall(
        'send_email',
        { recipient, campaign_id: 'console', subject: `Hi (${draft})`, body: draft },
        { run: { id: 'console-campaign' }, wait_ms: 3000 },
      );
    const recipients = ['ana@example.com', 'bo@example.com', 'cy@example.com'];
    const first = await Promise.all(recipients.map((to) => send(to, 'first draft')));
    const ids = first.map((call) => String(call.body['execution_id']));
    await eventually(
      async () => Promise.all(ids.map((id) => env.agentStatus(id))),
      (states) => states.every((s) => String(s['state']).startsWith('completed')),
    );
    const replay = await fetch(`${env.gateway.intakeUrl}/v1/runs/console-campaign/replays`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
      body: '{}',
    });
    expect(replay.status).toBe(201);
    await Promise.all(recipients.slice(0, 2).map((to) => send(to, 'second draft')));

    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByLabel('Run id').fill('console-campaign');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Run console-campaign', level: 1 }).waitFor();
    const attempt2 = page.locator('section.card', { has: page.getByRole('heading', { name: 'Attempt 2' }) });
    const dropped = attempt2.locator('details', { hasText: 'Done earlier, not requested again: 1' });
    await dropped.waitFor();
    await dropped.getByText(ids[2]!).waitFor();
    await attempt2.locator('details', { hasText: 'Requested again: 2' }).waitFor();
    await page.getByRole('cell', { name: 'safe: every earlier effect replay-safe' }).waitFor();
    await page.getByText('Attempt 3 may start: every effect so far is replay-safe').waitFor();
    await expectNoAxeViolations(page, 'run');
  });

  it('the vault locked from the page denies the next call; unlocked, calls go on', async () => {
    await page.getByRole('link', { name: 'Vault' }).click();
    await page.getByRole('status').filter({ hasText: 'unlocked' }).waitFor();
    await expectNoAxeViolations(page, 'vault');
    await page.getByLabel('Reason for locking').fill('incident 17: deploy key leaked');
    await page.getByRole('button', { name: 'Lock the vault' }).click();
    await page.getByRole('status').filter({ hasText: 'every new call is denied' }).waitFor();

    const call = await env.agentCall(
      'create_deployment',
      { project: 'console-vault', environment: 'production', version: '1.2.3' },
      { wait_ms: 3000 },
    );
    const denied = await eventually(
      () => env.agentStatus(String(call.body['execution_id'])),
      (s) => s['state'] === 'denied',
    );
    expect(denied).toMatchObject({
      state: 'denied',
      denial: { code: 'vault_locked', reason: expect.stringContaining('incident 17: deploy key leaked') },
    });
    expect(env.target.effects({ route: 'deployments' }).filter((e) => e.params['project'] === 'console-vault')).toHaveLength(0);

    await page.getByLabel('Reason for unlocking').fill('key rotated');
    await page.getByRole('button', { name: 'Unlock the vault' }).click();
    await page.getByRole('status').filter({ hasText: 'calls are decided by the rest of the ladder' }).waitFor();
  });

  it('fits a phone: no sideways scrolling on the approval queue', async () => {
    const phone = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await charge('cus_ConsolePhone');
    await small.goto(`${env.console.url}/#/approvals`);
    await small.locator('article.approval', { hasText: 'cus_ConsolePhone' }).waitFor();
    expect(await small.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await phone.close();
  });

  const openRun = async (runId: string, trigger: string): Promise<void> => {
    const opened = await fetch(`${env.gateway.intakeUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}` },
      body: JSON.stringify({ run_id: runId, trigger }),
    });
    expect(opened.status).toBe(201);
  };
  const refund = (customer: string) =>
    env.agentCall(
      'charge_payment',
      { customer_id: customer, amount_cents: 1500, card_token: CARD, description: 'refund fee' },
      { run: { id: 'console-refunds' } },
    );
  const settled = (executionId: string) =>
    eventually(
      () => env.agentStatus(executionId),
      (s) => String(s['state']).startsWith('completed') || s['state'] === 'denied',
    );

  it("a run's charges approved as one campaign in the page: the waiting ones charged once each, a later one from the grant, the one past it waits", async () => {
    await openRun('console-refunds', 'ticket:FIN-77');
    const first = await Promise.all(['cus_Refund1', 'cus_Refund2', 'cus_Refund3'].map(refund));
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = approvalCard('cus_Refund1');
    await card.getByRole('link', { name: 'campaign approval for charge_payment' }).click();
    await page.getByRole('heading', { name: 'Campaign: charge_payment in run console-refunds', level: 1 }).waitFor();
    for (const customer of ['cus_Refund1', 'cus_Refund2', 'cus_Refund3']) await approvalCard(customer).waitFor();
    expect(await page.content()).not.toContain(CARD);
    await expectNoAxeViolations(page, 'campaign');

    await page.getByLabel("How many of the run's calls to approve").fill('4');
    await page.getByRole('button', { name: 'Grant the campaign' }).click();
    await page.getByRole('alert').filter({ hasText: 'reason is required' }).waitFor();
    await page.getByLabel('Reason', { exact: true }).fill('refund fees for FIN-77, four customers');
    await page.getByRole('button', { name: 'Grant the campaign' }).click();
    await page.locator('.facts div', { hasText: 'Remaining' }).getByText('1', { exact: true }).waitFor();
    await page.locator('article.approval').first().waitFor({ state: 'detached' });
    const states = await Promise.all(first.map((call) => settled(String(call.body['execution_id']))));
    expect(states.map((s) => String(s['state']).replace('_result_not_delivered', ''))).toEqual(['completed', 'completed', 'completed']);
    for (const customer of ['cus_Refund1', 'cus_Refund2', 'cus_Refund3']) expect(charges(customer)).toBe(1);

    // The fourth use comes from the grant; the fifth call finds none left and waits for a person, shown live here.
    const fourth = await refund('cus_Refund4');
    expect(String((await settled(String(fourth.body['execution_id'])))['state'])).toMatch(/^completed/);
    expect(charges('cus_Refund4')).toBe(1);
    const fifth = await refund('cus_Refund5');
    const waiting = approvalCard('cus_Refund5');
    await waiting.waitFor();
    expect(charges('cus_Refund5')).toBe(0);
    await waiting.getByLabel('Reason for your decision').fill('over the campaign: not agreed');
    await waiting.getByRole('button', { name: 'Reject' }).click();
    await waiting.waitFor({ state: 'detached' });
    expect(await settled(String(fifth.body['execution_id']))).toMatchObject({ state: 'denied' });
    expect(charges('cus_Refund5')).toBe(0);
  });

  it('the runs list: every run newest first, filtered by trigger, each opening its run', async () => {
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    const rows = page.locator('table.runs-list tbody tr');
    await rows.first().waitFor();
    expect(await rows.first().innerText()).toContain('console-refunds');
    const campaignRow = rows.filter({ hasText: 'console-campaign' });
    expect(await campaignRow.innerText()).toMatch(/agent:console\s+schedule:2026-12-02\s+2\s/);
    await expectNoAxeViolations(page, 'runs list');

    await page.getByLabel('Trigger').fill('ticket:FIN-77');
    await page.getByRole('button', { name: 'Filter' }).click();
    await rows.filter({ hasText: 'console-campaign' }).waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(1);
    await page.getByRole('link', { name: 'console-refunds' }).click();
    await page.getByRole('heading', { name: 'Run console-refunds', level: 1 }).waitFor();
  });

  it("a run's replay check names what a replay would charge again; a forced replay needs a reason and a confirmation, and is recorded", async () => {
    await page.getByRole('heading', { name: 'Run console-refunds', level: 1 }).waitFor();
    await page.getByText('Attempt 2 would be refused').waitFor();
    const unsafe = page.locator('section.card', { has: page.getByRole('heading', { name: 'Replay check' }) }).locator('tbody tr');
    await unsafe.first().waitFor();
    // The four charges done (irreversible); the rejected fifth never happened, so it is safe.
    expect(await unsafe.count()).toBe(4);
    expect(await unsafe.first().innerText()).toContain('charge_payment');
    await expectNoAxeViolations(page, 'run with an unsafe replay check');

    await page.getByRole('button', { name: 'Force replay…' }).click();
    await page.getByRole('alert').filter({ hasText: 'reason is required' }).waitFor();
    await page.getByLabel('Reason for forcing the replay').fill('FIN-77: the provider lost the refunds, charge again');
    await page.getByRole('button', { name: 'Force replay…' }).click();
    await page.getByText('Start attempt 2 anyway? It may repeat 4 effects').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(
      (
        await env.db.pool.query(
          `SELECT 1 FROM onceport.events WHERE event_type = 'RunAttemptStarted' AND stream_id = 'run-console-refunds'`,
        )
      ).rowCount,
    ).toBe(0);

    await page.getByRole('button', { name: 'Force replay…' }).click();
    // The confirmation takes focus: Enter answers it.
    // A locator, not waitForFunction: the console's CSP (script-src 'self') refuses a string predicate.
    await page.locator('button:focus', { hasText: 'Yes, force attempt 2' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: /forced by ops:test-admin over 4 unsafe effect\(s\): FIN-77/ }).waitFor();
    await page.getByText('Attempt 3 would be refused').waitFor();
    const started = await env.db.pool.query<{ data: { attempt: number; forced: { by: string; reason: string; unsafeCount: number } } }>(
      `SELECT data FROM onceport.events WHERE event_type = 'RunAttemptStarted' AND stream_id = 'run-console-refunds'`,
    );
    expect(started.rows.map((row) => row.data)).toEqual([
      expect.objectContaining({ attempt: 2, forced: expect.objectContaining({ by: 'ops:test-admin', unsafeCount: 4 }) }),
    ]);
    // Forcing starts an attempt; it sends nothing by itself.
    for (const customer of ['cus_Refund1', 'cus_Refund2', 'cus_Refund3', 'cus_Refund4']) expect(charges(customer)).toBe(1);
  });

  it('a decision from the keyboard alone: Tab to the reason, type it, Tab to Grant, Enter → one charge; focus always visible', async () => {
    const call = await charge('cus_ConsoleKeys');
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = approvalCard('cus_ConsoleKeys');
    await card.waitFor();
    const approvalId = await card.getAttribute('data-approval');
    const tabTo = async (selector: string): Promise<void> => {
      for (let presses = 0; presses < 200; presses++) {
        await page.keyboard.press('Tab');
        const focus = await page.evaluate<{ on: boolean; outline: string }>(
          `(() => { const a = document.activeElement; return { on: !!a && a.matches(${JSON.stringify(selector)}), outline: a ? getComputedStyle(a).outlineStyle : 'none' }; })()`,
        );
        expect(focus.outline).not.toBe('none');
        if (focus.on) return;
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await page.locator('#page-title').focus();
    await tabTo(`#reason-${approvalId}`);
    await page.keyboard.type('confirmed with the customer, from the keyboard');
    await tabTo(`article[data-approval="${approvalId}"] button.primary`);
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });
    expect(String((await settled(String(call.body['execution_id'])))['state'])).toMatch(/^completed/);
    expect(charges('cus_ConsoleKeys')).toBe(1);
  });

  it('fits a phone: no sideways scrolling on the runs list, and passes the audit in the dark scheme', async () => {
    // In the dark scheme: the audit checks its contrast too.
    const phone = await env.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await small.goto(`${env.console.url}/#/runs`);
    await small.locator('table.runs-list tbody tr', { hasText: 'console-refunds' }).waitFor();
    expect(await small.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await expectNoAxeViolations(small, 'runs list on a phone, dark scheme');
    await phone.close();
  });

  it('an execution page, opened from what a replay would charge again, passes the audit', async () => {
    await page.goto(`${env.console.url}/#/runs/console-refunds`);
    const unsafe = page.locator('section.card', { has: page.getByRole('heading', { name: 'Replay check' }) });
    const link = unsafe.getByRole('link', { name: /^Execution exe_/ }).first();
    const executionId = (await link.innerText()).trim();
    await link.click();
    await page.getByRole('heading', { name: `Execution ${executionId}`, level: 1 }).waitFor();
    await page.getByText('charge_payment').first().waitFor();
    await expectNoAxeViolations(page, 'execution');
  });

  it('an execution page: the timeline and the five answers as they happened — a retry attached after completion, an unknown outcome settled — with the trace link', async () => {
    const traceId = '5c1e0a7be9b04d2f8a3c6d4e2f1a0b9c';
    const email = { recipient: 'dee@example.com', campaign_id: 'console-trace', subject: 'Receipt', body: 'thanks' };
    const call = async (waitMs: number, headers: Record<string, string> = {}) => {
      const response = await fetch(`${env.gateway.intakeUrl}/v1/executions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${AGENT_KEY}`, ...headers },
        body: JSON.stringify({ tool: 'send_email', arguments: email, wait_ms: waitMs }),
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const types = async (id: string): Promise<string[]> =>
      (
        await env.db.pool.query<{ event_type: string }>(
          'SELECT event_type FROM onceport.events WHERE stream_id = $1 ORDER BY stream_version',
          [`execution-${id}`],
        )
      ).rows.map((row) => row.event_type);
    // The first call leaves at once (wait_ms 0) under the caller's trace; the target answers, the
    // result is never delivered; the same call again attaches and gets it as a replay.
    const executionId = String((await call(0, { traceparent: `00-${traceId}-a1b2c3d4e5f60718-01` }))['execution_id']);
    await eventually(
      () => types(executionId),
      (seen) => seen.includes('OutcomeObserved'),
    );
    expect((await call(3000))['execution_id']).toBe(executionId);
    const happened = await eventually(
      () => types(executionId),
      (seen) => seen.includes('RetryAttached') && seen.includes('ResultDelivered'),
    );
    expect(happened).toEqual(expect.arrayContaining(['ExecutionAccepted', 'DispatchStarted', 'OutcomeObserved', 'RetryAttached']));

    await page.getByRole('link', { name: 'Executions' }).click();
    // The lookup page itself, not the execution page before it (it has the same field): typed into
    // that one, the text would go with it when the page changes.
    await page.getByRole('heading', { name: 'Executions', exact: true, level: 1 }).waitFor();
    await page.getByLabel('Execution id').fill('exe_not-an-id');
    await page.getByLabel('Execution id').press('Enter');
    await page.getByRole('alert').filter({ hasText: 'An execution id is exe_' }).waitFor();
    await page.getByLabel('Execution id').fill(executionId);
    await page.getByLabel('Execution id').press('Enter');
    await page.getByRole('heading', { name: `Execution ${executionId}`, level: 1 }).waitFor();
    const answer = (question: string) => page.locator('ol.questions > li', { has: page.getByRole('heading', { name: question }) });
    await answer('One agent process or two?').getByText('Cannot tell: the first call named no agent process').waitFor();
    await answer('Was the first call authorized and dispatched?')
      .getByText(/Yes: Authorized by .*dispatch attempt 1 started/)
      .waitFor();
    await answer('Did the target answer?')
      .getByText(/Yes: the target answered status 2\d\d \(succeeded\)/)
      .waitFor();
    await answer('Did delivery fail after the target completed?')
      .getByText(/never received the result .*as a replay/)
      .waitFor();
    await answer('Later calls: attached, keyed, new attempt?')
      .getByText(/1 later call attached to this execution/)
      .waitFor();
    expect(await answer('Later calls: attached, keyed, new attempt?').locator('.badge').innerText()).toBe('1 attached');
    // The timeline is the stream, in order.
    await page
      .locator('ol.timeline > li')
      .nth(happened.length - 1)
      .waitFor();
    expect(await page.locator('ol.timeline > li').evaluateAll((items) => items.map((item) => item.getAttribute('data-type')))).toEqual(
      await types(executionId),
    );
    const link = page.getByRole('link', { name: `Open trace ${traceId}` });
    expect(await link.getAttribute('href')).toBe(TRACE_UI.replace('{trace_id}', traceId));
    await expectNoAxeViolations(page, 'execution page');

    // A recorded unknown outcome: no answer reached Onceport, two probes, settled.
    const unknown = await env.seedHistory('unknown-outcome-settled', 0);
    await page.getByLabel('Execution id').fill(unknown);
    await page.getByLabel('Execution id').press('Enter');
    await page.getByRole('heading', { name: `Execution ${unknown}`, level: 1 }).waitFor();
    const target = answer('Did the target answer?');
    await target.getByText(/No answer reached Onceport: .*2 probes .*settled as completed/).waitFor();
    expect(await target.locator('.badge').innerText()).toBe('settled');
    expect(await page.locator('ol.timeline > li[data-type="ProbeAttempted"]').count()).toBe(2);
    // Its events were recorded with their trace context: one trace, one link.
    expect(await page.getByRole('link', { name: /^Open trace/ }).getAttribute('href')).toBe(
      TRACE_UI.replace('{trace_id}', '98130ffbdd67eff4b7f0b1e2b16097b7'),
    );

    // Reached from the page that shows the execution id; and it fits a phone.
    const phone = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.addCookies(await context.cookies());
    const small = await phone.newPage();
    await small.goto(`${env.console.url}/#/executions/${executionId}`);
    await small.locator('ol.timeline > li').first().waitFor();
    expect(await small.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await phone.close();
  });
});
