/** The repository's root directory, absolute: where `package.json`, `cdk.json` and `.petstore/` are. */
import { resolve } from 'node:path';

export const REPOSITORY_ROOT = resolve(import.meta.dirname, '..');
