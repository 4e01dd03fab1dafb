/**
 * A short, flat quotation of a client's value for an error message. Clients can send
 * anything up to the body limit (a megabyte string, 20,000 nested arrays), and an error
 * message must neither echo all of it nor recurse into it: strings are cut, and containers are
 * shown one level deep with their inner containers as `[…]` / `{…}`. No recursion at all, so
 * no depth of nesting can overflow the stack.
 */
const MAX_TEXT = 40;
const MAX_ITEMS = 3;

function scalar(v: unknown): string {
  if (typeof v === 'string') return v.length > MAX_TEXT ? `${JSON.stringify(v.slice(0, MAX_TEXT))}…` : JSON.stringify(v);
  if (Array.isArray(v)) return v.length === 0 ? '[]' : '[…]';
  if (v !== null && typeof v === 'object') return Object.keys(v).length === 0 ? '{}' : '{…}';
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  return typeof v;
}

export function excerpt(v: unknown): string {
  if (Array.isArray(v)) {
    const head = v.slice(0, MAX_ITEMS).map(scalar);
    return `[${head.join(',')}${v.length > MAX_ITEMS ? ',…' : ''}]`;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    const head = keys.slice(0, MAX_ITEMS).map((k) => `${scalar(k)}:${scalar((v as Record<string, unknown>)[k])}`);
    return `{${head.join(',')}${keys.length > MAX_ITEMS ? ',…' : ''}}`;
  }
  return scalar(v);
}
