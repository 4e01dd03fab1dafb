import type { Operation } from './http/operation.js';
import { level2Operation } from './level2/operation.js';
import { tickHistoryOperation } from './tickHistory/operation.js';

/**
 * Every operation the server answers, by `apiname`. The tick_history engineer adds
 * `tickHistoryOperation` here (import + one array entry); nothing else needs to change.
 */
export const OPERATIONS: readonly Operation[] = [level2Operation, tickHistoryOperation];
