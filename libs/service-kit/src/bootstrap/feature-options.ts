/**
 * What every feature module's `forRoot` takes (`IntakeModule.forRoot({ env, contractsDir })`): its
 * validated variables, the contracts directory, and where credentials are read. The ports come
 * from `ServiceKitModule` (global) in the same app.
 */
export interface FeatureModuleOptions<Env> {
  readonly env: Env;
  readonly contractsDir: string;
  /** Where `ONCEPORT_CREDENTIAL_<REF>` and `ONCEPORT_CREDENTIALS_DIR` are read; default process.env (the embedded start passes its own). */
  readonly environment?: NodeJS.ProcessEnv;
}
