/**
 * DynamoDB's item sizes and the capacity units they cost (DynamoDB Developer Guide, "Item sizes
 * and formats", "Read and write capacity units"), on items in document form.
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';

/** An item (or map) in document form. */
type Item = Readonly<Record<string, unknown>>;

/** Bytes of one attribute value as DynamoDB sizes it (a list or map: 3, and 1 per element). */
function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint' || value instanceof NumberValue) {
    // Significant digits, two per byte, plus one byte.
    const digits = String(value)
      .replace(/e.*$|[-.]/gi, '')
      .replace(/^0+|0+$/g, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, v) => sum + valueSize(v), 0);
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + 1 + valueSize(v), 3);
  if (value !== null && typeof value === 'object') {
    return 3 + Object.keys(value).length + itemSize(value as Item);
  }
  return 1; // boolean, null
}

/** Bytes of an item: every attribute's name (UTF-8) and value. */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value),
    0,
  );
}

/** Write units of an item of `bytes`: 1 per KB started, at least 1. */
export function writeUnits(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 1024));
}

/** Read units of `bytes` read in one call: 1 per 4 KB started (at least one), half if eventual. */
export function readUnits(bytes: number, consistent: boolean): number {
  return Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
}
