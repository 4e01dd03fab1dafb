/**
 * A stock-day's 1m bars from its day's minute file (storage/bars/barFiles.ts): the row group
 * holding the stock (its first row is in the catalog's daily row), six numeric columns decoded
 * once and kept in the server's byte-bounded cache beside the detailed files' columns.
 */
import { readFooter, type ParquetFooter } from '../../storage/parquet/metadata.js';
import { readRowGroups } from '../../storage/parquet/reader.js';
import type { LakeFiles } from '../../storage/lakeFiles.js';
import { asDamaged, DamagedFileError } from '../../storage/damagedFile.js';
import { MINUTE_VALUE_COLUMNS } from '../../storage/bars/barFiles.js';
import type { BarDay } from '../../storage/bars/barCatalog.js';
import type { ByteLru } from '../reading/byteLru.js';
import type { MinuteSlice } from './barValues.js';

const COLUMNS = Object.values(MINUTE_VALUE_COLUMNS);
const [OPEN, HIGH, LOW, CLOSE, VOL, AMOUNT] = COLUMNS;

type Group = Readonly<Record<'open' | 'high' | 'low' | 'close' | 'vol' | 'amount', Float64Array>>;

export class MinuteSource {
  constructor(
    /** The data directory, or the store for an offloaded day (lakeFiles.ts). */
    private readonly lake: LakeFiles,
    private readonly lru: ByteLru,
  ) {}

  /** The 241 bars starting at `minuteRow` of the day's minute file (`day` null: the catalog lists none). */
  async slice(tradedate: string, day: BarDay | null, minuteRow: number): Promise<MinuteSlice> {
    const path = day?.minutePath ?? null;
    const rowGroupSize = day?.minuteRowGroupSize ?? null;
    if (path === null || rowGroupSize === null)
      throw new DamagedFileError(`bars of ${tradedate}`, 'the catalog lists a stock-day with bars but no minute file');
    const g = Math.floor(minuteRow / rowGroupSize);
    const key = `${path}#bars${g}`;
    const group = this.lru.get<Group>(key) ?? this.lru.set(key, rowGroupSize * COLUMNS.length * 8 + 512, this.decode(path, g));
    return { ...(await group), at: minuteRow - g * rowGroupSize };
  }

  private footer(path: string): Promise<ParquetFooter> {
    const key = `${path}#footer`;
    return (
      this.lru.get<ParquetFooter>(key) ??
      this.lru.set(
        key,
        16 * 1024,
        this.lake.with(path, (f) => readFooter(f, f.size)),
      )
    );
  }

  private async decode(path: string, g: number): Promise<Group> {
    try {
      const footer = await this.footer(path);
      const [cols] = await this.lake.with(path, (f) => readRowGroups(f, footer, [g], COLUMNS, path));
      const num = (c: number) => {
        const col = cols!.get(c);
        if (col?.kind !== 'number') throw new DamagedFileError(path, `column ${c} is not numeric`);
        return col.values;
      };
      return { open: num(OPEN), high: num(HIGH), low: num(LOW), close: num(CLOSE), vol: num(VOL), amount: num(AMOUNT) };
    } catch (e) {
      throw e instanceof DamagedFileError ? e : asDamaged(path, e);
    }
  }
}
