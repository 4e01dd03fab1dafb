/**
 * The detailed history interfaces and the dataset each serves (api-contract: Detailed history, Trades and orders): one
 * operation, parameterised by this table, answers all three.
 */
import type { DetailedApiName } from '../access/plans.js';
import type { Dataset } from '../../shared/schema.js';

export type DetailedDataset = Extract<Dataset, 'level2' | 'trade' | 'order'>;

export const DATASET_OF: Readonly<Record<DetailedApiName, DetailedDataset>> = {
  level2_quote_history: 'level2',
  level2_trade_history: 'trade',
  level2_order_history: 'order',
};
