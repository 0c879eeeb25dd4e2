import { type AppProcess, startAppProcess } from './app-process';

/** The four services, each its own process, as a deployment runs them. */
export interface GatewayProcesses {
  readonly intake: AppProcess;
  readonly authorization: AppProcess;
  readonly dispatcher: AppProcess;
  readonly reconciler: AppProcess;
  /** SIGTERM every service and wait for them to exit. */
  stop(): Promise<void>;
}

/**
 * Starts authorization, dispatcher and reconciler, then intake: the consumers first, so the first
 * call an agent makes finds them consuming.
 */
export async function startGatewayProcesses(env: Record<string, string>): Promise<GatewayProcesses> {
  const [authorization, dispatcher, reconciler] = await Promise.all([
    startAppProcess('authorization', env),
    startAppProcess('dispatcher', env),
    startAppProcess('reconciler', env),
  ]);
  const intake = await startAppProcess('intake', env);
  return {
    intake,
    authorization,
    dispatcher,
    reconciler,
    async stop() {
      await Promise.all([intake.stop(), authorization.stop(), dispatcher.stop(), reconciler.stop()]);
    },
  };
}
