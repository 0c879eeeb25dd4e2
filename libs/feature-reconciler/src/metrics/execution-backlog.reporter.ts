import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { ToolContract } from '@onceport/domain';
import { PG_POOL } from '@onceport/service-kit';
import type { Pool } from 'pg';
import { RECONCILER_CONTRACTS } from '../reconciler.tokens';
import { reportExecutionBacklog } from './execution-backlog';

/** Points the `onceport_executions` gauge at this service's database while the service runs. */
@Injectable()
export class ExecutionBacklogReporter implements OnModuleInit, OnApplicationShutdown {
  private stop: (() => void) | null = null;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(RECONCILER_CONTRACTS) private readonly contracts: ReadonlyMap<string, ToolContract>,
  ) {}

  onModuleInit(): void {
    this.stop = reportExecutionBacklog(this.pool, this.contracts);
  }

  onApplicationShutdown(): void {
    this.stop?.();
  }
}
