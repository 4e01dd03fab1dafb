/**
 * runMirror through an upstream its caller already talks to (repair downloads through one
 * while the mirror fetches pages): every request goes through that one upstream, so one pacer
 * holds the peer to `--rate` for both together.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runMirror } from '../../../ingest/mirror/mirrorRun.js';
import { Upstream } from '../../../ingest/mirror/upstream.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { createLogger } from '../../../shared/logger.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { fakeUpstream } from '../../support/fakeUpstream.js';
import { tempDir } from '../../support/tempDir.js';

const t = suite('mirror: runMirror');

t("a given upstream carries every request, its own requests and the mirror's paced together", async () => {
  const RATE = 5;
  // Every day answered with no rows, in tick_history's fields.
  const peer = await fakeUpstream(() => ({ status: 200, data: { fields: SCHEMAS.index.fields.map((f) => f.name), items: [] } }));
  const stores = openIngestStores(tempDir(), () => Date.now());
  try {
    const upstream = new Upstream(peer.url, 'k', RATE);
    // The caller's own requests, under way while the mirror runs.
    const own = Promise.all(Array.from({ length: 4 }, () => upstream.client.tickHistory({ symbol: '000300', tradedate: '20250102' })));
    const outcome = await runMirror(
      { stores, nowMs: () => Date.now(), log: createLogger('silent', 'test'), upstream },
      { upstreamUrl: peer.url, apikey: 'k', days: ['20250102', '20250103'], datasets: ['index'], stocks: null, indexes: ['000300', '000905'], rate: RATE },
    );
    await own;
    assert.ok(peer.seen.length > 4, `the mirror asked too (${peer.seen.length} requests)`);
    assert.is(upstream.counts.requests, peer.seen.length, 'every request went through the given upstream');
    assert.is(outcome.counts, upstream.counts);
    // One pacer: N requests span at least (N - 1) × 1000/rate ms. Two (the caller's and the
    // mirror's side by side) would take about half of it. Arrival times carry a connection's
    // set-up, hence the slack, well under the difference.
    const at = peer.seen.map((x) => x.atMs);
    const span = Math.max(...at) - Math.min(...at);
    const paced = ((peer.seen.length - 1) * 1000) / RATE;
    assert.ok(span >= paced - 300, `${peer.seen.length} requests over ${span} ms: paced as one they take ${paced} ms`);
  } finally {
    stores.close();
    await peer.close();
  }
});

t.run();
