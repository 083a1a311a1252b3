/**
 * `npm run bench` (heat meter): each scenario at its 10× target rate in simulated time on
 * DynamoDB Local, every call's units charged to (table or GSI, partition key value) per simulated
 * second; prints the hottest partitions' share of a partition's limit and exits 1 where one passes
 * 0.8 (what it measures: docs/measurements.md, "Partition heat").
 *
 * `npx tsx bench/partition-heat.ts [--scenario NAME] [--instances K] [--seconds S]`: one scenario
 * (default: all), K instances run of those simulated (default: the scenario's own, else 20), S
 * measured seconds after one of warm-up (default 1).
 */
import './heat/quiet.ts';
import { parseArgs } from 'node:util';
import { createTables } from '../infra/local/create-tables.ts';
import { createLambdaContext } from '../infra/local/events.ts';
import { createDynamoDBBase } from '../shared/dynamodb/base.ts';
import { createDocumentClient } from '../shared/dynamodb/clients.ts';
import { TABLES } from '../shared/dynamodb/tables.ts';
import { readSettings } from '../shared/settings.ts';
import { withLocalStack } from './bench-setup.ts';
import { schemaOf } from './heat/charges.ts';
import {
  HeatMeter,
  meterHeat,
  overThreshold,
  type PartitionHeat,
  SHARE_THRESHOLD,
} from './heat/heat-meter.ts';
import { instanceContainer, SCENARIOS, type Scenario } from './heat/scenarios.ts';
import { instancesFor, runAtRate, SimulatedClock } from './heat/simulation.ts';

/** Simulated seconds each scenario runs before its metered ones: instances start, caches fill. */
const WARM_UP_SECONDS = 1;
/** How long before the metered window the pets are created (simulated), so none is brand new. */
const SEEDED_BEFORE_MS = 60_000;
/** Requests in flight on DynamoDB Local: more only lengthen its queue (and time requests out). */
const CONCURRENCY = 8;
/**
 * Largest share of requests that may answer otherwise than expected (a 503 when DynamoDB Local is
 * too slow for the functions' deadlines) before the run is not valid: their units go uncounted.
 */
const UNEXPECTED_ANSWERS = 0.01;
/** Hottest partitions printed per scenario. */
const TOP = 3;

const { values: options } = parseArgs({
  options: {
    scenario: { type: 'string' },
    instances: { type: 'string' },
    seconds: { type: 'string', default: '1' },
  },
});
const selected = options.scenario
  ? SCENARIOS.filter((scenario) => scenario.name === options.scenario)
  : SCENARIOS;
if (selected.length === 0) {
  console.error(
    `No scenario ${options.scenario}: one of ${SCENARIOS.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}
/** Instances run of a scenario's simulated ones, unless the scenario or `--instances` says. */
const DEFAULT_SAMPLED = 20;
const sampledInstances = options.instances === undefined ? undefined : Number(options.instances);
const measuredSeconds = Number(options.seconds);
if (![sampledInstances ?? 1, measuredSeconds].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error('--instances and --seconds take whole numbers from 1');
  process.exit(2);
}

const figure = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Prints a scenario's hottest partitions; @returns whether all are within the threshold. */
function report(scenario: Scenario, heats: readonly PartitionHeat[]): boolean {
  console.log(
    '  table or index               partition key value                        units/s   share',
  );
  for (const heat of heats.slice(0, TOP)) {
    const unit = heat.kind === 'write' ? 'WCU' : 'RCU';
    const mark = heat.share > SHARE_THRESHOLD ? `  over ${SHARE_THRESHOLD}` : '';
    console.log(
      `  ${heat.target.padEnd(28)} ${heat.partition.slice(0, 40).padEnd(40)} ${figure(heat.unitsPerSecond).padStart(8)} ${unit} ${figure(heat.share, 2).padStart(6)}${mark}`,
    );
  }
  const [hottest] = heats;
  if (hottest) {
    console.log(
      `  the hottest partition reaches its limit at ≈ ${figure(scenario.rate / hottest.share)} requests/s (${figure(hottest.unitsPerSecond / scenario.rate, 3)} units per request)`,
    );
  }
  return overThreshold(heats).length === 0;
}

/** Runs one scenario on its own tables; @returns whether it passed (shares and answers). */
async function runScenario(scenario: Scenario): Promise<boolean> {
  const setup = createDocumentClient();
  const names = await createTables(setup, (table) => `${table.localName}-${scenario.name}`);
  setup.destroy();
  const base = createDynamoDBBase(readSettings({ ...process.env, ...names }));
  // A whole minute: the simulated seconds never cross into the next minute's windows.
  const startMs = Math.floor(Date.now() / 60_000) * 60_000;
  const clock = new SimulatedClock(startMs);
  const meter = new HeatMeter();
  meterHeat(base.client, schemaOf(TABLES, names), meter, clock.requestTime);

  const load = await scenario.prepare(instanceContainer(base, () => startMs - SEEDED_BEFORE_MS));
  const instances = instancesFor(scenario.rate);
  const run = Math.min(instances, sampledInstances ?? scenario.sampledInstances ?? DEFAULT_SAMPLED);
  const started = performance.now();
  const statuses = await runAtRate(
    {
      rate: scenario.rate,
      seconds: WARM_UP_SECONDS + measuredSeconds,
      startMs,
      sampledInstances: run,
      concurrency: CONCURRENCY,
    },
    clock,
    () => load.handlerOf(instanceContainer(base, clock.now)),
    (i, n) => {
      const event = load.eventOf(i, n);
      return async (handler) =>
        (await handler(event, createLambdaContext(scenario.name))).statusCode;
    },
  );
  const realSeconds = (performance.now() - started) / 1000;
  base.client.destroy();

  const answers = [...statuses].map(([status, count]) => `${status} × ${figure(count)}`).join(', ');
  console.log(`\n${scenario.name}: ${figure(scenario.rate)}/s ${scenario.title}`);
  console.log(
    `  ${measuredSeconds} s measured after ${WARM_UP_SECONDS} s of warm-up (simulated); ${instances} function instances, ${run} run (units × ${figure(instances / run, 1)}); answers ${answers}; ${figure(realSeconds, 1)} s real`,
  );
  const within = report(
    scenario,
    meter.hottest(startMs + WARM_UP_SECONDS * 1000, measuredSeconds, instances / run),
  );
  const requests = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  const unexpected = requests - (statuses.get(scenario.status) ?? 0);
  const valid = unexpected <= requests * UNEXPECTED_ANSWERS;
  if (!valid) {
    console.log(
      `  over ${UNEXPECTED_ANSWERS * 100} % of answers other than ${scenario.status}: not valid`,
    );
  }
  return within && valid;
}

await withLocalStack(async () => {
  const failed: string[] = [];
  for (const scenario of selected) {
    if (!(await runScenario(scenario))) failed.push(scenario.name);
  }
  if (failed.length > 0) {
    console.log(
      `\nOver ${SHARE_THRESHOLD} of a partition's limit (or invalid): ${failed.join(', ')}`,
    );
    process.exitCode = 1;
  }
});
