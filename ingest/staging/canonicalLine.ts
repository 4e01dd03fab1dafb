/**
 * A validated row as a feed line (`kind`, `symbol`, `tradedate`, `time`, then every value
 * field in schema order, codes as their letters, null for null): what validation accepts, so `tickvault replay` takes
 * it back as it is.
 *
 * Why: sites that agree on a seal cut (--state-url) quarantine the messages past it as late,
 * some when they arrive and some from staging when the site seals — and staging keeps the
 * row, not the message's text. Writing every such late row from its values gives the same
 * quarantine entry on every site, whichever way the message came to be late.
 */
import { codeLetter, SCHEMAS, type Dataset } from '../../shared/schema.js';
import { formatIndexTime, formatLevel2Time } from '../../shared/timeFormat.js';

export function canonicalFeedLine(dataset: Dataset, tradedate: string, symbol: string, timeMs: number, values: ArrayLike<number | null>): string {
  const row: Record<string, unknown> = {
    kind: dataset,
    symbol,
    tradedate,
    time: SCHEMAS[dataset].timeForm === 'level2' ? formatLevel2Time(timeMs) : formatIndexTime(tradedate, timeMs),
  };
  const fields = SCHEMAS[dataset].valueFields;
  for (let i = 0; i < fields.length; i++) {
    const v = values[i];
    row[fields[i].name] = v === null || Number.isNaN(v) ? null : fields[i].type === 'code' ? codeLetter(v) : v;
  }
  return JSON.stringify(row);
}
