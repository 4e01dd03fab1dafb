import * as assert from 'uvu/assert';
import { ApiError } from '../../serve/http/apiError.js';

/** Asserts that `run` throws an ApiError with this code whose message matches (names the parameter). */
export function assertApiError(run: () => unknown, code: number, message: RegExp, what: string): void {
  try {
    run();
  } catch (e) {
    assert.instance(e, ApiError);
    assert.is((e as ApiError).code, code);
    assert.match((e as ApiError).message, message);
    return;
  }
  assert.unreachable(`expected ${code} for ${what}`);
}
