/**
 * Imported first by the heat meter's entry, before any module builds the service's logger: the
 * warnings of requests that DynamoDB Local answers too slowly (limiter admitted uncounted, 503)
 * and their metrics would drown the figures. The logger reads its level once, at construction.
 */
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
