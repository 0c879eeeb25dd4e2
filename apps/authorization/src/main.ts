import { ActorsFileError } from '@onceport/config';
import { ToolContractError } from '@onceport/domain';
import { AuthorizationModule, authorizationEnvShape, loadAuthorizationOptions } from '@onceport/feature-authorization';
import { bootstrapService } from '@onceport/runtime';

void bootstrapService({
  serviceName: 'authorization',
  defaultPort: 3002,
  envShape: authorizationEnvShape,
  module: async (_runtime, env, base) => {
    try {
      return AuthorizationModule.forRoot(await loadAuthorizationOptions(env, base.ONCEPORT_CONTRACTS_DIR));
    } catch (error) {
      // A bad actors file or contract is the operator's to fix: say where, and exit like a bad variable does.
      if (!(error instanceof ActorsFileError || error instanceof ToolContractError)) throw error;
      process.stderr.write(`authorization: ${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
  },
});
