/**
 * Evaluates the statements of a synthesized resource policy (an SNS topic policy, a KMS key
 * policy) for one request by an AWS service principal, as IAM does for a resource-based policy
 * alone: allowed when an Allow statement matches and no Deny does. Intrinsics are resolved against
 * a sample account and region; an unknown intrinsic or condition operator throws.
 */

/** Pseudo parameters of the sample account and region the policies are read in. */
export const SAMPLE_ENVIRONMENT: Readonly<Record<string, string>> = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'us-east-1',
  'AWS::AccountId': '111111111111',
  'AWS::URLSuffix': 'amazonaws.com',
};

/** A request as the service makes it: its principal, action, resource and context keys. */
export interface ServiceRequest {
  /** The calling service principal, or an IAM principal's account root ARN. */
  readonly service: string;
  readonly action: string;
  /** The resource, resolved by {@link resolve} (a resource's `Ref` reads `ref:<logicalId>`). */
  readonly resource: string;
  readonly context: Readonly<Record<string, string>>;
}

/**
 * A template value with its intrinsics resolved: pseudo parameters from
 * {@link SAMPLE_ENVIRONMENT}, `Ref` of a resource as `ref:<logicalId>`, `Fn::GetAtt` as
 * `getatt:<logicalId>.<attribute>`, `Fn::Join` joined.
 *
 * @throws Error for any other intrinsic.
 */
export function resolve(value: unknown): string {
  if (typeof value === 'string') return value;
  const [[fn, args] = []] = Object.entries(value as Record<string, unknown>);
  if (fn === 'Ref') return SAMPLE_ENVIRONMENT[args as string] ?? `ref:${args}`;
  if (fn === 'Fn::GetAtt') return `getatt:${(args as string[]).join('.')}`;
  if (fn === 'Fn::Join') {
    const [separator, parts] = args as [string, unknown[]];
    return parts.map(resolve).join(separator);
  }
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

/** IAM's `*` and `?` wildcards, case-sensitive. */
function like(pattern: string, value: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${source.replace(/\?/g, '.')}$`).test(value);
}

/** Negated operators: the condition holds when the value matches none of the expected ones. */
const NEGATED: Readonly<Record<string, string>> = { StringNotEquals: 'StringEquals' };

const OPERATORS: Record<string, (expected: string, actual: string) => boolean> = {
  StringEquals: (expected, actual) => expected === actual,
  StringLike: like,
  ArnEquals: (expected, actual) => expected === actual,
  ArnLike: like,
  Bool: (expected, actual) => expected === actual,
};

/** Whether every condition of a statement holds for `context` (a missing key never matches). */
function conditionsHold(condition: unknown, context: Readonly<Record<string, string>>): boolean {
  return Object.entries((condition ?? {}) as Record<string, Record<string, unknown>>).every(
    ([operator, keys]) => {
      const negated = NEGATED[operator];
      const test = OPERATORS[negated ?? operator];
      if (!test) throw new Error(`condition operator ${operator} is not evaluated here`);
      return Object.entries(keys).every(([key, expected]) => {
        const actual = context[key];
        // As IAM: a missing key matches no value, so a negated operator holds.
        if (actual === undefined) return negated !== undefined;
        const some = [expected].flat().some((value) => test(resolve(value), actual));
        return negated ? !some : some;
      });
    },
  );
}

function matches(statement: Record<string, unknown>, request: ServiceRequest): boolean {
  const principal = statement.Principal as Record<string, unknown> | string;
  // An IAM principal (`AWS`: an account's root admits every principal of that account) is
  // named in `request.service` by its ARN, e.g. `arn:aws:iam::111111111111:root`.
  const services =
    typeof principal === 'string'
      ? [principal]
      : [principal?.Service ?? [], principal?.AWS ?? []].flat().map(resolve);
  const actions = [statement.Action].flat() as string[];
  const resources = [statement.Resource].flat().map(resolve);
  return (
    services.some((service) => service === '*' || service === request.service) &&
    actions.some((action) => like(action.toLowerCase(), request.action.toLowerCase())) &&
    resources.some((resource) => like(resource, request.resource)) &&
    conditionsHold(statement.Condition, request.context)
  );
}

/**
 * Whether a resource policy alone lets `request` through: some Allow statement matches it and no
 * Deny statement does.
 *
 * @param statements The policy document's `Statement` array, as synthesized.
 */
export function policyAllows(statements: readonly unknown[], request: ServiceRequest): boolean {
  const matching = (statements as Record<string, unknown>[]).filter((s) => matches(s, request));
  return matching.some((s) => s.Effect === 'Allow') && !matching.some((s) => s.Effect === 'Deny');
}
