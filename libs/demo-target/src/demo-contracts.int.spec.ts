import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonValue } from '@onceport/contracts';
import { parseToolContracts, type HttpToolContract } from '@onceport/domain';
import { HttpChannel } from '@onceport/target-channels';
import { startDemoTarget, type DemoTarget } from './demo-target';

const DEMO = join(__dirname, '../../domain/test/fixtures/contracts/demo.yaml');

const demoArguments: Record<string, Record<string, JsonValue>> = {
  create_deployment: { project: 'shop', environment: 'staging', version: '1.4.2', strategy: 'rolling' },
  send_email: { recipient: 'ada@example.com', campaign_id: 'spring', subject: 'Hi', body: 'Hello' },
  charge_payment: { customer_id: 'cus_42', amount_cents: 1200, currency: 'EUR', card_token: 'tok_abcdefgh' },
  get_build_status: { build_id: 7 },
};

/** The demo contracts, pointed at the demo target instead of the example.com origins. */
function demoContracts(origin: string): HttpToolContract[] {
  return parseToolContracts(readFileSync(DEMO, 'utf8'), 'demo.yaml')
    .filter((c): c is HttpToolContract => c.channel === 'http')
    .map((c) => ({ ...c, target: { ...c.target, origin } }));
}

describe('demo target serves the demo contracts (demo.yaml) through the real HTTP channel', () => {
  let target: DemoTarget;
  let channel: HttpChannel;

  beforeAll(async () => {
    target = await startDemoTarget();
    channel = new HttpChannel();
  });

  afterAll(async () => {
    await channel.close();
    await target.stop();
  });

  it.each(['create_deployment', 'send_email', 'charge_payment', 'get_build_status'])('%s reaches a route of the target', async (name) => {
    const contract = demoContracts(target.url).find((c) => c.name === name)!;
    const executionId = `exe_${name}`;

    const outcome = await channel.send({ contract, executionId, arguments: demoArguments[name]!, credential: 'demo-secret' });

    expect(outcome).toMatchObject({ kind: 'observed', status: contract.effect === 'none' ? 200 : 201 });
    const recorded = target.effects({ idempotencyKey: executionId });
    expect(recorded).toHaveLength(contract.effect === 'none' ? 0 : 1);
  });

  it('settles create_deployment with its declared probe: applied after a dropped answer, not applied for an unknown id', async () => {
    const contract = demoContracts(target.url).find((c) => c.name === 'create_deployment')!;
    target.setBehavior({ route: 'deployments', accept_then_drop: true, times: 1 });
    const args = demoArguments['create_deployment']!;

    const outcome = await channel.send({ contract, executionId: 'exe_dropped', arguments: args, credential: 'demo-secret' });
    const applied = await channel.probe({ contract, executionId: 'exe_dropped', arguments: args, credential: 'demo-secret' });
    const notApplied = await channel.probe({ contract, executionId: 'exe_never_sent', arguments: args, credential: 'demo-secret' });

    expect(outcome.kind).toBe('unknown');
    expect(applied.verdict).toBe('applied');
    expect(notApplied.verdict).toBe('not_applied');
  });
});
