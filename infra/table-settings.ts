/**
 * How a stage's tables are named and where a 1.0.0 stage is in their conversion into global
 * tables (docs/operations.md, "Converting 1.0.0's tables"), read from the CDK context and checked.
 */
import type { Construct } from 'constructs';
import { TABLES, type TableDefinition } from '../shared/dynamodb/tables.ts';
import { matching, read } from './deployment-context.ts';
import { contextKey, type StageName, stackName } from './stages.ts';

/**
 * The steps of turning a 1.0.0 stage's tables (`AWS::DynamoDB::Table`) into global tables with no
 * table replaced (docs/operations.md, "Converting 1.0.0's tables"): `retain` keeps the tables
 * when they leave the stack (staging's are DESTROY); `detach` takes them out of the template, the
 * stack reading them by name; `import` adds them back as `AWS::DynamoDB::GlobalTable`s for
 * `cdk import`, still read by name. After the import the setting goes and the regions come.
 */
export const TABLE_CONVERSION_STEPS = ['retain', 'detach', 'import'] as const;

/** A step of {@link TABLE_CONVERSION_STEPS}. */
export type TableConversionStep = (typeof TABLE_CONVERSION_STEPS)[number];

/** How a stage's tables are named and where it is in their conversion. */
export interface StageTableSettings {
  /**
   * Physical name of each table by construct id (`petstore:<stage>:tableNames`, e.g.
   * `PetsTable=petstore-production-PetsTable1A2B3C-XYZ,...`): the names a 1.0.0 stage's tables
   * got from CloudFormation. Unset: CloudFormation names a one-region stage's tables, and a
   * stage of several regions names its global tables {@link globalTableName}.
   */
  readonly names?: Readonly<Record<string, string>>;
  /** The conversion step under way (`petstore:<stage>:tableConversion`). @default - none */
  readonly conversion?: TableConversionStep;
}

const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/**
 * The physical name of a global table of a stage with no `tableNames`, the same in every region
 * (so that each region's stack names its replica with no cross-region reference):
 * `petstore-<stage>-<constructId>`, e.g. `petstore-production-PetsTable`.
 */
export function globalTableName(stage: StageName, definition: TableDefinition): string {
  return `${stackName(stage)}-${definition.constructId}`;
}

/**
 * `stage`'s {@link StageTableSettings}: `petstore:<stage>:tableNames` and
 * `petstore:<stage>:tableConversion`.
 *
 * @throws Error when a name is not `<constructId>=<table name>` of a table of `TABLES`, the names
 *   leave a table out, the step is not one of {@link TABLE_CONVERSION_STEPS}, or `detach` or
 *   `import` is set without the names.
 */
export function tableSettings(scope: Construct, stage: StageName): StageTableSettings {
  const namesKey = contextKey(stage, 'tableNames');
  const conversionKey = contextKey(stage, 'tableConversion');
  const ids = TABLES.map((definition) => definition.constructId);
  const pairs = read(scope, namesKey)
    ?.split(',')
    .map((pair) => pair.trim().split('='));
  for (const [id, name, ...rest] of pairs ?? []) {
    if (!ids.includes(id ?? '') || name === undefined || !TABLE_NAME.test(name) || rest.length) {
      throw new Error(
        `${namesKey} must be <construct id>=<table name> for each of ${ids.join(', ')}, separated by commas; got '${[id, name, ...rest].join('=')}'`,
      );
    }
  }
  const names = pairs && Object.fromEntries(pairs);
  const missing = names && ids.filter((id) => names[id] === undefined);
  if (missing?.length) throw new Error(`${namesKey} leaves out ${missing.join(', ')}`);
  const conversion = matching(
    scope,
    conversionKey,
    new RegExp(`^(${TABLE_CONVERSION_STEPS.join('|')})$`),
    TABLE_CONVERSION_STEPS.join(', or '),
  ) as TableConversionStep | undefined;
  if ((conversion === 'detach' || conversion === 'import') && names === undefined) {
    throw new Error(`${conversionKey}=${conversion} needs ${namesKey}: the 1.0.0 tables' names`);
  }
  return { names, conversion };
}
