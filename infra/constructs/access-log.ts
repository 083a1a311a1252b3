/**
 * The API stage's access log line (read by the access log format, the authorizer-failure metric
 * filter and Logs Insights queries in docs/operations.md).
 */
import { AccessLogField } from 'aws-cdk-lib/aws-apigateway';

/**
 * The access log line: one JSON object per request. Fields API Gateway always fills with a number
 * are written as JSON numbers; integrationLatency and integrationStatus stay strings because API
 * Gateway writes `-` for them when no integration ran (a refused key, a 405), which as a bare
 * value would make the line invalid JSON for Logs Insights and the metric filter.
 */
export const ACCESS_LOG_FIELDS: Readonly<Record<string, { value: string; number?: true }>> = {
  requestId: { value: AccessLogField.contextRequestId() },
  requestTime: { value: AccessLogField.contextRequestTime() },
  apiId: { value: AccessLogField.contextApiId() },
  sourceIp: { value: AccessLogField.contextIdentitySourceIp() },
  userAgent: { value: AccessLogField.contextIdentityUserAgent() },
  httpMethod: { value: AccessLogField.contextHttpMethod() },
  resourcePath: { value: AccessLogField.contextResourcePath() },
  path: { value: AccessLogField.contextPath() },
  status: { value: AccessLogField.contextStatus(), number: true },
  responseLength: { value: AccessLogField.contextResponseLength(), number: true },
  responseLatency: { value: AccessLogField.contextResponseLatency(), number: true },
  integrationLatency: { value: AccessLogField.contextIntegrationLatency() },
  integrationStatus: { value: AccessLogField.contextIntegrationStatus() },
  keyId: { value: AccessLogField.contextAuthorizer('keyId') },
  xrayTraceId: { value: AccessLogField.contextXrayTraceId() },
  errorType: { value: AccessLogField.contextErrorResponseType() },
  errorMessage: { value: AccessLogField.contextErrorMessage() },
  authorizerError: { value: AccessLogField.contextAuthorizerError() },
  integrationError: { value: AccessLogField.contextIntegrationErrorMessage() },
};

/** {@link ACCESS_LOG_FIELDS} as an access log format: numbers bare, everything else quoted. */
export function accessLogFormat(): string {
  const fields = Object.entries(ACCESS_LOG_FIELDS).map(
    ([name, { value, number }]) => `"${name}":${number ? value : `"${value}"`}`,
  );
  return `{${fields.join(',')}}`;
}
