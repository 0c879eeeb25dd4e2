/** One thing a replica needs before it takes traffic; `probe` throws (its message says why) while it is not there. */
export interface ReadinessCheck {
  readonly name: string;
  probe(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('ONCEPORT_READINESS_CHECKS');
