/** A window of audit entries that is empty or too long (the admin API's 400 `invalid_parameter`). */
export class InvalidAuditWindowError extends Error {
  override readonly name = 'InvalidAuditWindowError';
}
