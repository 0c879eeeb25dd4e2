import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ASSETS_DIR } from '../console.tokens';

/** What the built front end is made of (`nx build console` writes them); nothing else is served from disk. */
const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

/** The page may run only its own script and style, talk only to this origin, and be framed by no one. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

@Controller()
export class AssetsController {
  constructor(@Inject(ASSETS_DIR) private readonly dir: string) {}

  @Get()
  index(@Res() res: ServerResponse): Promise<void> {
    return this.serve('index.html', res);
  }

  @Get(':file')
  file(@Param('file') file: string, @Res() res: ServerResponse): Promise<void> {
    return this.serve(file, res);
  }

  private async serve(file: string, res: ServerResponse): Promise<void> {
    const type = Object.hasOwn(FILES, file) ? FILES[file] : undefined;
    if (!type) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('not found');
      return;
    }
    let body: Buffer;
    try {
      body = await readFile(join(this.dir, file));
    } catch {
      res
        .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS })
        .end(`The console's front end is not built (${file} is missing in ${this.dir}): run "npx nx build console" or "npm run build".`);
      return;
    }
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', ...SECURITY_HEADERS }).end(body);
  }
}
