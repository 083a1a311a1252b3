/** Keys have one writer, the stage's home region (docs/architecture.md, "Regions"). */

import type { FunctionSettings } from '../function-settings.ts';
import { regionsOf } from '../regions.ts';

/** @throws Error naming both regions when `settings`' region is not the stage's home region. */
export function assertHomeRegion(
  settings: Pick<FunctionSettings, 'PETSTORE_REGIONS' | 'AWS_REGION'>,
  what: string,
): void {
  const { names, own } = regionsOf(settings);
  if (own !== 0) {
    throw new Error(
      `${what} are administered in the home region ${names[0]} only, not in ${names[own]}`,
    );
  }
}
