// Entity ids are PostgreSQL bigints sent as strings; anything else (or out of range) names no record.
const MAX_BIGINT = 9223372036854775807n;

export function isId(value: string): boolean {
  return /^\d{1,19}$/.test(value) && BigInt(value) <= MAX_BIGINT;
}
