import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamicModule } from '@nestjs/common';
import { HealthModule } from '@onceport/service-kit';

/**
 * The console's `/healthz` and `/readyz`, as every service has them (the kit's terminus module).
 * Ready once the built front end is where it is served from: a console without its page answers
 * every visitor 503, so it must not take traffic (an image built without `build-web`, say).
 *
 * @example imports: [consoleHealth(env.ONCEPORT_CONSOLE_ASSETS_DIR ?? defaultAssetsDir())]
 */
export function consoleHealth(assetsDir: string): DynamicModule {
  return HealthModule.forRoot({
    useFactory: () => [
      {
        name: 'front_end',
        probe: async () => {
          if (!existsSync(join(assetsDir, 'index.html'))) throw new Error(`not built: no index.html in ${assetsDir}`);
        },
      },
    ],
  });
}
