/**
 * STUB of w48-web's portal/build.ts, so that w48-infra deploys a site before the portal lands:
 * take w48-web's at merge. `tsx portal/build.ts <directory>` writes the site there.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const [directory = 'portal/dist'] = process.argv.slice(2);
await mkdir(join(directory, 'assets'), { recursive: true });
await writeFile(join(directory, 'assets/main-STUB.js'), 'export {};\n');
await writeFile(
  join(directory, 'index.html'),
  '<!doctype html><title>Portal</title><script type="module" src="/assets/main-STUB.js"></script>\n',
);
