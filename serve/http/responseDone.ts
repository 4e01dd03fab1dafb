/**
 * "This response is done": fully written (aborted false) or its connection closed first
 * (aborted true). The request log, the metrics and the app all want to know, for every
 * request; each adding its own 'finish' and 'close' listeners (on top of Node's and Koa's own
 * for a streamed body) went past Node's ten-listener warning on every streamed answer. So a
 * response gets one pair of listeners, and the callbacks queue behind it.
 */
import type { ServerResponse } from 'node:http';

type DoneCallback = (aborted: boolean) => void;

const waiting = new WeakMap<ServerResponse, DoneCallback[]>();

/** Calls `cb` once, when the response is fully written or the connection closed before that. */
export function onResponseDone(res: ServerResponse, cb: DoneCallback): void {
  const queue = waiting.get(res);
  if (queue) {
    queue.push(cb);
    return;
  }
  const callbacks: DoneCallback[] = [cb];
  waiting.set(res, callbacks);
  let fired = false;
  const fire = (aborted: boolean) => {
    if (fired) return;
    fired = true;
    res.off('finish', onFinish);
    res.off('close', onClose);
    for (const f of callbacks) f(aborted);
  };
  const onFinish = () => fire(false);
  const onClose = () => fire(!res.writableFinished);
  res.once('finish', onFinish);
  res.once('close', onClose);
}
