import type { GatewayService } from '@onceport/gateway-harness';

/** One thing the nemesis does: SIGKILL a service replica (then start it again), or crash-restart NATS or PostgreSQL. */
export type Fault =
  | { readonly kind: 'kill'; readonly service: GatewayService; readonly replica: number }
  | { readonly kind: 'nats' }
  | { readonly kind: 'postgres' };

export interface ScheduledFault {
  readonly atSeconds: number;
  readonly fault: Fault;
}

const SERVICES: readonly GatewayService[] = ['intake', 'authorization', 'dispatcher', 'reconciler'];

/**
 * One cycle: every replica of every service killed once, NATS and PostgreSQL each restarted once per
 * replica round, interleaved so no two faults of the same part follow each other.
 */
export function faultCycle(replicas: number): Fault[] {
  const cycle: Fault[] = [];
  for (let replica = 0; replica < replicas; replica += 1) {
    const kills = SERVICES.map((service): Fault => ({ kind: 'kill', service, replica }));
    cycle.push(...kills.slice(0, 2), { kind: 'nats' }, ...kills.slice(2), { kind: 'postgres' });
  }
  return cycle;
}

/**
 * A fault every `everySeconds`, the cycle repeated: the first after one quiet period (the load has
 * settled in), the last at least one period before the end (the run ends healed, so what is left
 * unsettled is stuck, not merely recent).
 */
export function nemesisSchedule(durationSeconds: number, everySeconds: number, replicas: number): ScheduledFault[] {
  const cycle = faultCycle(replicas);
  const schedule: ScheduledFault[] = [];
  for (let at = everySeconds, i = 0; at <= durationSeconds - everySeconds; at += everySeconds, i += 1)
    schedule.push({ atSeconds: at, fault: cycle[i % cycle.length] as Fault });
  return schedule;
}

export function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case 'kill':
      return `SIGKILL ${fault.service} #${fault.replica}`;
    case 'nats':
      return 'SIGKILL nats-server';
    case 'postgres':
      return 'PostgreSQL immediate stop';
  }
}
