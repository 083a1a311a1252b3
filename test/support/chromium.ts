/**
 * Headless Chromium for the tests: the machine's `/usr/bin/chromium` (no browser download ever),
 * with the flags every test of a page uses, run on the real clock (LD_PRELOAD cleared: under the
 * suite's libfaketime, a browser with a faked clock spins instead of rendering).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

/** The Chromium that `npm test` requires (infra/test-prerequisites.ts). */
export const CHROMIUM = '/usr/bin/chromium';

/** Flags of every headless run: no sandbox (containers, root), no GPU, no calls home. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
] as const;

/** The environment of a Chromium process: the test's, on the real clock. */
export const chromiumEnv = (): NodeJS.ProcessEnv => ({ ...process.env, LD_PRELOAD: '' });

/** Chromium driven by Playwright (playwright-core), headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_FLAGS],
    env: chromiumEnv() as Record<string, string>,
  });
}

const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** One finding of axe-core, as a test reports it. */
export interface AxeFinding {
  readonly id: string;
  readonly impact: string;
  readonly targets: string[];
}

/**
 * Runs axe-core (its `axe.min.js`, evaluated in the page: an evaluation is no inline script, so
 * the page's CSP stays as served) on the page as it is now.
 *
 * @returns The serious and critical violations, each with the elements it names.
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { axe } = globalThis as unknown as {
      axe: { run(): Promise<{ violations: AxeViolation[] }> };
    };
    const { violations } = await axe.run();
    return violations.map(({ id, impact, nodes }) => ({
      id,
      impact: impact ?? '',
      targets: nodes.map((node) => node.target.join(' ')),
    }));
  });
  return violations.filter(({ impact }) => impact === 'serious' || impact === 'critical');
}

/** The part of axe's result this file reads. */
interface AxeViolation {
  id: string;
  impact?: string;
  nodes: { target: string[] }[];
}

/** Most Tab presses a page needs to reach a control; more means the control is not reachable. */
const MAX_TABS = 60;

/**
 * Moves the focus with the Tab key alone until `target` has it, as a keyboard user would.
 *
 * @throws Error when `target` is not reached within {@link MAX_TABS} presses.
 */
export async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let presses = 0; presses < MAX_TABS; presses += 1) {
    if (await target.evaluate((element) => element.matches(':focus'))) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}
