import { join } from 'node:path';

/**
 * Where the console's sources are in the workspace. `npm start` runs the console as its own
 * process (as it runs in a deployment, talking to the services over HTTP), so it names the
 * console's files instead of importing them: apps never import each other.
 */
const CONSOLE_APP = join(__dirname, '../../../console');

export const CONSOLE_PATHS = {
  main: join(CONSOLE_APP, 'src/main.ts'),
  buildWeb: join(CONSOLE_APP, 'scripts/build-web.ts'),
  webSources: join(CONSOLE_APP, 'web'),
} as const;
