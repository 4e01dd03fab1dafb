/**
 * A stand-in upstream on loopback for the mirror's rules (pacing, lanes, waits): it answers
 * each request with `answer(n, body)` (n counts from 0) after `holdMs`, and records when each
 * arrived and how many were in flight per apiname. What it answers is the test's; a real
 * tickvault upstream is in test/support/mirror.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Seen {
  readonly apiname: string;
  readonly atMs: number;
}

export async function fakeUpstream(
  answer: (n: number, body: { apiname: string }) => { status: number; retryAfter?: string; reason?: string; data?: unknown },
  holdMs = 0,
) {
  const seen: Seen[] = [];
  const inFlight = new Map<string, number>();
  let maxInFlight = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as { apiname: string };
      const n = seen.length;
      seen.push({ apiname: body.apiname, atMs: Date.now() });
      const now = (inFlight.get(body.apiname) ?? 0) + 1;
      inFlight.set(body.apiname, now);
      maxInFlight = Math.max(maxInFlight, now);
      setTimeout(() => {
        inFlight.set(body.apiname, inFlight.get(body.apiname)! - 1);
        const a = answer(n, body);
        res.statusCode = a.status;
        res.setHeader('content-type', 'application/json');
        if (a.retryAfter !== undefined) res.setHeader('retry-after', a.retryAfter);
        if (a.reason !== undefined) res.setHeader('x-tickvault-reason', a.reason);
        res.end(
          JSON.stringify({
            code: a.status,
            message: a.status === 200 ? 'success' : `refused ${a.status}`,
            data: a.status === 200 ? (a.data ?? { fields: ['symbol'], items: [] }) : null,
          }),
        );
      }, holdMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, maxInFlight: () => maxInFlight, close: () => new Promise<void>((r) => server.close(() => r())) };
}
