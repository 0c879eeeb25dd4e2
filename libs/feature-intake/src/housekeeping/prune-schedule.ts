import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { IntakePruner } from './intake-pruner';

export const INTAKE_PRUNER = Symbol('INTAKE_PRUNER');
export const PRUNE_SCHEDULE_OPTIONS = Symbol('PRUNE_SCHEDULE_OPTIONS');

export interface PruneScheduleOptions {
  readonly intervalMs: number;
  readonly log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/** Runs the pruner every `intervalMs` on every replica (its deletes are safe from all at once); one run at a time here. */
@Injectable()
export class PruneSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    @Inject(INTAKE_PRUNER) private readonly pruner: IntakePruner,
    @Inject(PRUNE_SCHEDULE_OPTIONS) private readonly options: PruneScheduleOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private runOnce(): Promise<void> {
    this.running ??= this.pruner
      .pruneOnce()
      .then((counts) => {
        if (counts.sessions + counts.streamEvents + counts.agentProcesses > 0) this.options.log('info', 'intake pruned', { ...counts });
      })
      .catch((error: unknown) =>
        this.options.log('warn', 'intake prune failed; the next run tries again', { error: String(error).slice(0, 500) }),
      )
      .finally(() => (this.running = null));
    return this.running;
  }
}
