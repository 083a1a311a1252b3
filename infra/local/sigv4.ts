/**
 * AWS_IAM authorization of the local admin API: a request's SigV4 signature checked as API Gateway
 * checks it (AWS General Reference, "Signature Version 4"), against the local stack's own
 * credentials. The signature is recomputed with the AWS SDK's own signer (`@smithy/signature-v4`,
 * SHA-256 from `@smithy/hash-node`) over what the request says it signed, and compared in
 * constant time: no signing code of our own.
 */
import { timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { GatewayResponseType } from '../gateway-responses.ts';

/** The service name a request to API Gateway is signed for. */
export const EXECUTE_API_SERVICE = 'execute-api';

/** How far a signature's time may lie from the gateway's clock: 15 minutes, as AWS allows. */
export const MAX_SIGNATURE_SKEW_MS = 15 * 60 * 1000;

/** The signing algorithm the admin API accepts (SigV4 with HMAC-SHA256). */
const ALGORITHM = 'AWS4-HMAC-SHA256';

/** `Credential=AKID/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=a;b, Signature=hex`. */
const AUTHORIZATION_PATTERN =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;_.-]+),\s*Signature=([0-9a-f]{64})$/;

/** `X-Amz-Date`: basic ISO 8601 in UTC, e.g. `20260101T120000Z`. */
const AMZ_DATE_PATTERN = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/**
 * A principal the local stack knows: its access key and secret, and who it is (its ARN and unique
 * id, e.g. `arn:aws:iam::000000000000:user/petstore-local-operator`).
 */
export interface SigningPrincipal {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly userArn: string;
  readonly userId: string;
}

/** A request as received, for its signature check. */
export interface ReceivedRequest {
  /** HTTP method, upper case. */
  readonly method: string;
  /** The path as sent on the wire (percent-encoded), without the query, e.g. `/admin/keys/key_1`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Header values by name as received, each name's values in the order sent. */
  readonly headers: Record<string, string[]>;
  readonly body: Buffer;
}

/**
 * The outcome of a signature check: the signer, or the gateway response API Gateway answers
 * instead (each a 403 of the admin API) and its reason, in API Gateway's words, for the log.
 */
export type SignatureCheck =
  | { readonly principal: SigningPrincipal }
  | {
      readonly refusal: Extract<
        GatewayResponseType,
        'MISSING_AUTHENTICATION_TOKEN' | 'UNAUTHORIZED' | 'INVALID_SIGNATURE' | 'EXPIRED_TOKEN'
      >;
      readonly reason: string;
    };

/** A refusal of a signature that is there but does not hold. */
function invalid(reason: string): SignatureCheck {
  return { refusal: 'INVALID_SIGNATURE', reason };
}

/**
 * Checks a request's SigV4 signature (in the `Authorization` header) as API Gateway does for an
 * AWS_IAM method.
 *
 * @param principals The access keys the stack accepts.
 * @param region The region the stack's requests are signed for, e.g. `us-east-1`.
 * @param now The gateway's clock, epoch milliseconds.
 * @returns The signing principal when the signature holds; else MISSING_AUTHENTICATION_TOKEN for
 *   an unsigned request, UNAUTHORIZED for an unknown access key, EXPIRED_TOKEN for a signature
 *   more than 15 minutes from `now`, INVALID_SIGNATURE for one for another region or service or
 *   that does not match the request (a wrong secret, or a request changed after signing).
 */
export async function checkSignature(
  request: ReceivedRequest,
  principals: readonly SigningPrincipal[],
  region: string,
  now: number,
): Promise<SignatureCheck> {
  const authorization = only(request.headers, 'authorization');
  if (authorization === undefined || !authorization.startsWith(`${ALGORITHM} `)) {
    return {
      refusal: 'MISSING_AUTHENTICATION_TOKEN',
      reason: 'Missing Authentication Token: the request is not signed with SigV4.',
    };
  }
  const parts = AUTHORIZATION_PATTERN.exec(authorization);
  if (!parts) return invalid('The Authorization header is not a SigV4 signature.');
  const [, accessKeyId, scopeDate, scopeRegion, service, signedHeaderList = '', signature = ''] =
    parts;
  const principal = principals.find((known) => known.accessKeyId === accessKeyId);
  if (!principal) {
    return {
      refusal: 'UNAUTHORIZED',
      reason: 'The security token included in the request is invalid.',
    };
  }
  if (scopeRegion !== region || service !== EXECUTE_API_SERVICE) {
    return invalid(
      `Credential should be scoped to a valid region and service: ${region}/${EXECUTE_API_SERVICE}.`,
    );
  }
  const amzDate = only(request.headers, 'x-amz-date');
  const signedAt = amzDate === undefined ? undefined : parseAmzDate(amzDate);
  if (signedAt === undefined || amzDate?.slice(0, 8) !== scopeDate) {
    return invalid('The request has no valid X-Amz-Date matching its credential scope.');
  }
  if (Math.abs(now - signedAt.getTime()) > MAX_SIGNATURE_SKEW_MS) {
    return {
      refusal: 'EXPIRED_TOKEN',
      reason: `Signature expired: ${amzDate} is more than 15 minutes from the gateway's time ${new Date(now).toISOString()}.`,
    };
  }
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) {
    return invalid('The signature must cover the Host and X-Amz-Date headers.');
  }
  const expected = await recompute(request, principal, region, signedHeaders, signedAt);
  return expected !== undefined && sameText(expected, signature)
    ? { principal }
    : invalid(
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      );
}

/**
 * The signature the SDK's signer makes of the request with the principal's secret, over exactly
 * the headers the request names as signed. A signed `X-Amz-Content-SHA256` is replaced by the hash
 * of the body received, so that a body changed after signing fails the comparison.
 *
 * @returns The hex signature, or `undefined` when a signed header was not sent.
 */
async function recompute(
  request: ReceivedRequest,
  principal: SigningPrincipal,
  region: string,
  signedHeaders: readonly string[],
  signedAt: Date,
): Promise<string | undefined> {
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const values = valuesOf(request.headers, name);
    if (values.length === 0) return undefined;
    headers[name] = values.join(',');
  }
  if ('x-amz-content-sha256' in headers) {
    const hash = new Hash('sha256');
    hash.update(request.body);
    headers['x-amz-content-sha256'] = Buffer.from(await hash.digest()).toString('hex');
  }
  const signer = new SignatureV4({
    credentials: principal,
    region,
    service: EXECUTE_API_SERVICE,
    sha256: Hash.bind(null, 'sha256'),
    // Only what the client signed: the verifier adds no header of its own.
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path: request.path,
      query: queryRecord(request.query),
      headers,
      body: request.body,
    },
    { signingDate: signedAt, signableHeaders: new Set(signedHeaders) },
  );
  return /Signature=([0-9a-f]+)$/.exec(String(signed.headers.authorization))?.[1];
}

/** The query as the signer takes it: one string per name, or every value of a repeated name. */
function queryRecord(query: URLSearchParams): Record<string, string | string[]> {
  const record: Record<string, string | string[]> = {};
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    record[name] = values.length === 1 ? (values[0] ?? '') : values;
  }
  return record;
}

/** Every value of a header, its name matched without regard to case. */
function valuesOf(headers: Record<string, string[]>, name: string): string[] {
  return Object.entries(headers).flatMap(([key, values]) =>
    key.toLowerCase() === name ? values.map((value) => value.trim().replace(/\s+/g, ' ')) : [],
  );
}

/** A header's one value, or `undefined` when it is missing or repeated. */
function only(headers: Record<string, string[]>, name: string): string | undefined {
  const values = valuesOf(headers, name);
  return values.length === 1 ? values[0] : undefined;
}

/** The instant of an `X-Amz-Date`, or `undefined` when it is malformed. */
function parseAmzDate(text: string): Date | undefined {
  const match = AMZ_DATE_PATTERN.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** Whether two strings are equal, compared in constant time for strings of equal length. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
