/**
 * A tiny real HTTP server for the client's tests of answers tickvault does not give on
 * demand (a repeated cursor, a wrong media type, a download cut short, a 503 at a chosen
 * moment). Each request is answered by the next script step (the last one repeats) and
 * recorded with its arrival time and parsed JSON body.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step = (res: ServerResponse, body: Record<string, unknown>) => void;

export interface Recorded {
  readonly atMs: number;
  readonly body: Record<string, unknown>;
}

export interface ScriptedServer {
  readonly baseUrl: string;
  readonly requests: Recorded[];
  close(): Promise<void>;
}

export async function scriptedServer(steps: readonly Step[]): Promise<ScriptedServer> {
  const requests: Recorded[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const step = steps[Math.min(requests.length, steps.length - 1)];
      requests.push({ atMs: performance.now(), body });
      step(res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A step answering the JSON envelope with `status` as HTTP status and code. */
export function envelope(status: number, message: string, data: unknown, headers: Record<string, string> = {}): Step {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify({ code: status, message, data }));
  };
}

/** A fetch that records the status of every answer it passes on. */
export function countingFetch(): { fetch: typeof fetch; statuses: number[] } {
  const statuses: number[] = [];
  return {
    statuses,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    },
  };
}
