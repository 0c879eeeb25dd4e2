import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { AUTHORIZATION_SERVICE } from '../authorize-execution/decide-authorization';
import { type Log } from '../shared/log';
import { ApprovalDesk } from './approval-desk';

/**
 * Ends approvals nobody decided in time (issue #5: "expired approvals end the execution as denied,
 * with that reason"). Every replica may sweep: ExpireApproval is bound to the approval and is a
 * no-op once recorded, so two sweeps append one denial.
 */
export class ApprovalExpirySweep {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly desk: ApprovalDesk,
    private readonly intervalMs: number,
    private readonly log: Log,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass; returns how many approvals it ended. Tests call it to drive the sweep deterministically. */
  async sweepOnce(): Promise<number> {
    // On its own: a retry that cannot run (the database away) must not keep approvals from expiring.
    await this.desk.retryUnfoldable().catch((error: unknown) => this.log('warn', 'quarantine retries failed', { error: String(error) }));
    return this.desk.expireLapsed({ causationId: 'sweep:approval-expiry', actor: AUTHORIZATION_SERVICE });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweepOnce()
        .then(() => undefined)
        .catch((error: unknown) => this.log('warn', 'approval expiry sweep failed', { error: String(error) }))
        .finally(() => this.schedule(this.intervalMs));
    }, delayMs);
  }
}

/** Runs the sweep while the service runs; stops it before the service kit closes the pool. */
@Injectable()
export class ApprovalExpiryLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(ApprovalExpirySweep) private readonly sweep: ApprovalExpirySweep) {}

  onApplicationBootstrap(): void {
    this.sweep.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweep.stop();
  }
}
