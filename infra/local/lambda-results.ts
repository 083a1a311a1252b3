/**
 * What the local gateway accepts back from the functions, checked as API Gateway checks it: the
 * authorizer's result (policy, principal, context) and a proxy integration's result. Anything
 * else is answered with a gateway response (AUTHORIZER_CONFIGURATION_ERROR, INTEGRATION_FAILURE).
 */
import * as v from 'valibot';

const StringOrListSchema = v.union([v.string(), v.array(v.string())]);
const PrimitiveSchema = v.union([v.string(), v.number(), v.boolean()]);

/** An IAM policy statement on execute-api (Action or NotAction, Resource or NotResource). */
const StatementSchema = v.object({
  Effect: v.picklist(['Allow', 'Deny']),
  Action: v.optional(StringOrListSchema),
  NotAction: v.optional(StringOrListSchema),
  Resource: v.optional(StringOrListSchema),
  NotResource: v.optional(StringOrListSchema),
});

/** A Lambda authorizer's result. Context values must be strings, numbers or booleans. */
export const AuthorizerResultSchema = v.object({
  principalId: v.string(),
  policyDocument: v.object({ Version: v.string(), Statement: v.array(StatementSchema) }),
  context: v.nullish(v.record(v.string(), PrimitiveSchema)),
  usageIdentifierKey: v.nullish(v.string()),
});

/** A valid Lambda authorizer result. */
export type AuthorizerResult = v.InferOutput<typeof AuthorizerResultSchema>;

/** A Lambda proxy integration's result (REST API, payload v1). */
export const ProxyResultSchema = v.object({
  statusCode: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
  headers: v.nullish(v.record(v.string(), PrimitiveSchema)),
  multiValueHeaders: v.nullish(v.record(v.string(), v.array(PrimitiveSchema))),
  body: v.nullish(v.string()),
  isBase64Encoded: v.nullish(v.boolean()),
});

/** A valid proxy integration result. */
export type ProxyResult = v.InferOutput<typeof ProxyResultSchema>;

/**
 * Whether an authorizer's policy lets the caller invoke a method, as IAM decides it: at least
 * one matching Allow and no matching Deny. `*` and `?` are wildcards in actions and resources;
 * actions compare case-insensitively.
 *
 * @param policy The authorizer result's `policyDocument`.
 * @param arn The method ARN of the call, e.g. `arn:aws:execute-api:local:000000000000:local/v1/GET/pets`.
 */
export function policyAllows(policy: AuthorizerResult['policyDocument'], arn: string): boolean {
  const matching = policy.Statement.filter(
    (statement) =>
      matches(statement.Action, statement.NotAction, 'execute-api:Invoke', 'i') &&
      matches(statement.Resource, statement.NotResource, arn, ''),
  );
  return (
    matching.some((statement) => statement.Effect === 'Allow') &&
    !matching.some((statement) => statement.Effect === 'Deny')
  );
}

/** `value` matches a pattern of `list`, or (with `notList`) none of `notList`. */
function matches(
  list: string | string[] | undefined,
  notList: string | string[] | undefined,
  value: string,
  flags: string,
): boolean {
  const any = (patterns: string | string[]) =>
    [patterns].flat().some((pattern) => wildcard(pattern, flags).test(value));
  if (list !== undefined) return any(list);
  return notList !== undefined && !any(notList);
}

function wildcard(pattern: string, flags: string): RegExp {
  const source = pattern
    .split(/([*?])/)
    .map((part) =>
      part === '*' ? '.*' : part === '?' ? '.' : part.replace(/[.+^${}()|[\]\\/]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`, flags);
}
