/**
 * Downloads whose client does not read, and a watch over the slot they hold (api-contract:
 * In-flight slot): the slot row must keep one holder, with a lease kept ahead of the clock,
 * for as long as the answer is not handed to the socket, and every other request of the
 * account must be refused meanwhile. Shared by the SQLite (two processes) and PostgreSQL (two
 * sites) tests, which differ only in where the row is read.
 */
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import type { ApiResponse } from './server.js';

export interface ApiCall {
  readonly apiname: string;
  readonly apikey: string;
  readonly params: Record<string, unknown>;
}

export interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: Buffer;
}

/** Requests written on one connection at once (HTTP/1.1 pipelining), nothing read back yet. */
export interface UnreadExchange {
  readonly socket: Socket;
  /** Reads every answer, in order, each to its Content-Length. */
  readAll(): Promise<RawAnswer[]>;
}

export function unreadExchange(port: number, calls: readonly ApiCall[]): Promise<UnreadExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    // Paused before anything arrives: the kernel's buffers fill, then the server's.
    socket.pause();
    socket.once('error', reject);
    socket.once('connect', () => {
      const text = calls
        .map((c) => {
          const body = JSON.stringify(c);
          return `POST /api HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        })
        .join('');
      socket.write(text, () => resolve({ socket, readAll: () => readAnswers(socket, calls.length) }));
    });
  });
}

function readAnswers(socket: Socket, count: number): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    const answers: RawAnswer[] = [];
    let buf: Buffer = Buffer.alloc(0);
    const parse = () => {
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? NaN);
        if (!Number.isFinite(length)) return fail(new Error(`an answer without a Content-Length: ${head}`));
        if (buf.length < end + 4 + length) return;
        answers.push({ status: Number(head.slice(9, 12)), head, body: Buffer.from(buf.subarray(end + 4, end + 4 + length)) });
        buf = buf.subarray(end + 4 + length);
        if (answers.length === count) return done();
      }
    };
    const onData = (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      parse();
    };
    const onClose = () => fail(new Error(`the connection closed after ${answers.length} of ${count} answers`));
    const done = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
      resolve(answers);
    };
    const fail = (e: Error) => {
      socket.off('data', onData);
      socket.off('close', onClose);
      reject(e);
    };
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.resume();
  });
}

/** The account's slot row as the shared state has it, with that state's clock. */
export interface SlotRow {
  readonly holder: string;
  readonly expiresAtMs: number;
  readonly nowMs: number;
}

export interface HeldWatch {
  readonly holder: string;
  /** How many times the lease was seen extended. */
  readonly renewals: number;
  /** The status of every request of the account sent meanwhile. */
  readonly statuses: readonly number[];
}

/**
 * For `forMs`, over and over: the slot row is there, with the same holder and a lease not yet
 * run out, and a request of the account (`probe`, which alternates sites, keys and formats as
 * the caller likes) is refused with 503. Fails on the first 200, the first missing row or
 * change of holder.
 */
export async function watchHeldSlot(
  readRow: () => SlotRow | undefined | Promise<SlotRow | undefined>,
  probe: (i: number) => Promise<ApiResponse>,
  forMs: number,
): Promise<HeldWatch> {
  const first = await readRow();
  assert.ok(first, 'the download holds a slot');
  const started = Date.now();
  let lastExpiry = first.expiresAtMs;
  let renewals = 0;
  const statuses: number[] = [];
  for (let i = 0; Date.now() - started < forMs; i++) {
    const r = await probe(i);
    statuses.push(r.status);
    assert.is(r.status, 503, `request ${i + 1} of the account while its download is unread: ${r.status} ${r.text.slice(0, 200)}`);
    const row = await readRow();
    assert.ok(row, `the slot row was gone after ${Date.now() - started} ms, while the download was unread`);
    assert.is(row.holder, first.holder, 'one holder across the whole hold');
    assert.ok(row.expiresAtMs > row.nowMs, `the lease ran out (${row.expiresAtMs} ≤ ${row.nowMs}) instead of being renewed`);
    if (row.expiresAtMs > lastExpiry) renewals++;
    lastExpiry = row.expiresAtMs;
    await new Promise((res) => setTimeout(res, 25));
  }
  return { holder: first.holder, renewals, statuses };
}

/** Waits until the slot row is there (the download's request has taken it). */
export async function whenHeld(readRow: () => SlotRow | undefined | Promise<SlotRow | undefined>, timeoutMs = 30_000): Promise<void> {
  for (const started = Date.now(); !(await readRow()); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() - started > timeoutMs) throw new Error('the download never took its slot');
  }
}
