/** The fields of each bar interface, in the contract's order (api-contract: Bars). */
import type { BarApiName } from '../access/plans.js';

export interface FieldList {
  readonly fieldNames: readonly string[];
  readonly position: ReadonlyMap<string, number>;
}

function list(names: readonly string[]): FieldList {
  return { fieldNames: names, position: new Map(names.map((n, i) => [n, i])) };
}

const DAILY = ['tradedate', 'symbol', 'name', 'open', 'high', 'low', 'close', 'pre_close', 'change', 'pct_chg', 'vol', 'amount'];

export const BAR_FIELDS: Readonly<Record<BarApiName, FieldList>> = {
  minute: list(['tradedate', 'symbol', 'trademin', 'time', 'open', 'high', 'low', 'close', 'vol', 'amount', 'vwap']),
  daily: list(DAILY),
  weekly: list(DAILY),
  monthly: list(DAILY),
  daily_auc: list([
    'tradedate',
    'symbol',
    'name',
    'm_price',
    'auc_pct_chg',
    'open_bid_pct',
    'auc_amt',
    'auc_vol',
    'auc_vol_ratio',
    'auc_to_pre_vol_pct',
    'auc_to_pre_auc_vol_ratio',
    'um_vol',
    'um_side',
    'auc_turnover_rate',
    'auc_turnover',
  ]),
};

export const TRADECAL_FIELDS = list(['cal_date', 'is_open', 'pretrade_date']);
