import type { Operation } from './http/operation.js';
import { level2Operation, orderHistoryOperation, tradeHistoryOperation } from './level2/operation.js';
import { tickHistoryOperation } from './tickHistory/operation.js';

/** Every operation the server answers, by `apiname`. */
export const OPERATIONS: readonly Operation[] = [level2Operation, tradeHistoryOperation, orderHistoryOperation, tickHistoryOperation];
