import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { peakRssBytes } from '../../shared/peakRss.js';

const t = suite('peakRssBytes');

t("a child started by a big process reports its own peak, not the parent's (ru_maxrss carries it across exec)", () => {
  const big = Buffer.alloc(600 << 20, 1); // resident: filled
  const mine = peakRssBytes();
  assert.ok(mine >= 600 << 20, `this process holds 600 MiB: ${mine}`);
  const script = `import(${JSON.stringify(new URL('../../shared/peakRss.js', import.meta.url).href)}).then((m) => console.log(JSON.stringify([m.peakRssBytes(), process.resourceUsage().maxRSS * 1024])))`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  const [own, inherited] = JSON.parse(r.stdout) as [number, number];
  assert.ok(own < 200 << 20, `the child's own peak: ${own >> 20} MiB`);
  if (process.platform === 'linux') assert.ok(inherited >= 600 << 20, `ru_maxrss inherited: ${inherited >> 20} MiB`);
  assert.is(big[big.length - 1], 1);
});

t.run();
