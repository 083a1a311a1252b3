/** The stage's regions and the keys of each region's items (docs/architecture.md, "Regions"). */
import type { FunctionSettings } from './function-settings.ts';

/** Most regions a stage may have: pet ids are issued in this many residues (id-blocks.ts). */
export const MAX_REGIONS = 16;

/** The stage's regions as one function sees them. */
export interface Regions {
  /** Home first: `PETSTORE_REGIONS`, or this one alone. */
  readonly names: readonly string[];
  /** Place of `AWS_REGION` in `names`. */
  readonly own: number;
}

/** A stage of one region: every item keeps the key it had before there were regions. */
export const ONE_REGION: Regions = { names: ['home'], own: 0 };

/** Region names (any lower-case name locally) separated by commas. */
const REGION_LIST = /^[a-z0-9-]+( *, *[a-z0-9-]+)*$/;

/**
 * The stage's regions, `PETSTORE_REGIONS`, and `AWS_REGION`'s place among them.
 * @throws Error for a list not of names, a name twice, more than 16, or `AWS_REGION` not in it.
 */
export function regionsOf(
  settings: Pick<FunctionSettings, 'PETSTORE_REGIONS' | 'AWS_REGION'>,
): Regions {
  const list = settings.PETSTORE_REGIONS ?? '';
  if (list !== '' && !REGION_LIST.test(list)) {
    throw new Error(
      `Environment variable PETSTORE_REGIONS must be region names separated by commas, not "${list}"`,
    );
  }
  const names = list.split(',').map((name) => name.trim());
  if (names.length < 2) return ONE_REGION;
  const own = names.indexOf(settings.AWS_REGION ?? '');
  if (own < 0 || names.length > MAX_REGIONS || new Set(names).size < names.length) {
    throw new Error(
      `PETSTORE_REGIONS (${names}) must name at most ${MAX_REGIONS} regions, each once, AWS_REGION (${settings.AWS_REGION}) among them`,
    );
  }
  return { names, own };
}

export function isMultiRegion(regions: Regions): boolean {
  return regions.names.length > 1;
}

/**
 * The key of the item `name` that region `at` writes: `name` in the home region, else
 * `<name>@<region>`. @param at Place of the writing region. @default regions.own
 */
export function regionalName(name: string, regions: Regions, at = regions.own): string {
  return at === 0 ? name : `${name}@${regions.names[at]}`;
}

/** The keys of the item `name` that the other regions write, in their order in `names`. */
export function othersNames(name: string, regions: Regions): string[] {
  return regions.names.flatMap((_, at) =>
    at === regions.own ? [] : [regionalName(name, regions, at)],
  );
}
