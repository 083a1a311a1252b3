/**
 * A small evaluator of IAM role trust policies for web identities: does a policy document let a
 * token with these claims call `sts:AssumeRoleWithWebIdentity`? It knows the condition operators
 * StringEquals and StringLike and throws on any other, so that a new one cannot pass unexamined.
 */

/** One statement of a policy document, as `Template.fromStack` gives it. */
interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Principal?: { readonly Federated?: unknown };
  readonly Condition?: Record<string, Record<string, string | string[]>>;
}

/** A glob of IAM's StringLike: `*` any run of characters, `?` one character. */
function like(pattern: string, value: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(value);
}

const OPERATORS: Record<string, (pattern: string, value: string) => boolean> = {
  StringEquals: (pattern, value) => pattern === value,
  StringLike: like,
};

/**
 * Whether `document` allows a token whose claims are `claims` (condition key → value, e.g.
 * `token.actions.githubusercontent.com:sub`) to assume the role through the provider `provider`
 * (the statement's `Principal.Federated`, compared as JSON). A missing claim fails its condition,
 * as in IAM; a Deny statement or an unknown operator throws.
 */
export function admits(
  document: { Statement: Statement[] },
  provider: unknown,
  claims: Readonly<Record<string, string>>,
): boolean {
  return document.Statement.some((statement) => {
    if (statement.Effect !== 'Allow') throw new Error(`unexpected Effect ${statement.Effect}`);
    const actions = [statement.Action].flat();
    if (!actions.includes('sts:AssumeRoleWithWebIdentity')) return false;
    if (JSON.stringify(statement.Principal?.Federated) !== JSON.stringify(provider)) return false;
    return Object.entries(statement.Condition ?? {}).every(([operator, conditions]) => {
      const test = OPERATORS[operator];
      if (!test) throw new Error(`unknown condition operator ${operator}`);
      return Object.entries(conditions).every(([key, patterns]) => {
        const value = claims[key];
        return value !== undefined && [patterns].flat().some((pattern) => test(pattern, value));
      });
    });
  });
}
