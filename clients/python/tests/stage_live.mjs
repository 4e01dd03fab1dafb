// Stages a generated trading day without sealing it (a live day) for the Python tests, with the
// service's own staging writer from the built tree next to the CLI under test: there is no
// command that stages without sealing (the ingestor does, from Kafka).
// Usage: node stage_live.mjs DIST/cli/main.js DATA_DIR YYYYMMDD
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [cli, dataDir, day] = process.argv.slice(2);
const dist = dirname(dirname(cli));
const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
const { generateIntoStaging } = await load('ingest/feed/generateIntoStaging.js');
const { openIngestStores } = await load('ingest/staging/stores.js');
const stores = openIngestStores(dataDir, () => Date.now());
try {
  const g = await generateIntoStaging({ days: [day], stocks: 3, indexes: 1, seed: 'pytest-live', faults: 0, ticks: 0.1 }, stores.staging);
  process.stdout.write(`${g.rows}\n`);
} finally {
  stores.close();
}
