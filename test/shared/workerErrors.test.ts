/**
 * The registry of error classes rebuilt across threads (shared/workerErrors.ts): a class
 * joins it from its own module; an error of no registered class arrives as a plain Error with
 * its name, message, code and cause. The crossing of a real worker is in workerPool.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorFromWire, errorToWire, wireErrorClass } from '../../shared/workerErrors.js';

const test = suite('shared/workerErrors');

class ParentError extends Error {
  constructor(
    message: string,
    readonly n: number,
  ) {
    super(message);
  }
}
class ChildError extends ParentError {}

wireErrorClass('ParentError', {
  type: ParentError,
  fields: (e) => ({ n: e.n }),
  rebuild: (message, f) => new ParentError(message, f.n as number),
});
wireErrorClass('ChildError', {
  type: ChildError,
  fields: (e) => ({ n: e.n }),
  rebuild: (message, f) => new ChildError(message, f.n as number),
});

test('a registered class arrives as itself, fields included; a subclass registered after its parent as the subclass', () => {
  const p = errorFromWire(structuredClone(errorToWire(new ParentError('p', 3))));
  assert.instance(p, ParentError);
  assert.is((p as ParentError).n, 3);
  assert.not.instance(p, ChildError);
  const c = errorFromWire(structuredClone(errorToWire(new ChildError('c', 4))));
  assert.instance(c, ChildError);
  assert.is((c as ChildError).n, 4);
  assert.is(c.message, 'c');
});

test('an unregistered error arrives as an Error with its name, code and a registered cause as itself', () => {
  const e = Object.assign(new TypeError('outer', { cause: new ParentError('inner', 7) }), { code: 'E_X' });
  const back = errorFromWire(structuredClone(errorToWire(e)));
  assert.is(back.constructor, Error);
  assert.is(back.name, 'TypeError');
  assert.is((back as { code?: string }).code, 'E_X');
  assert.instance(back.cause, ParentError);
  assert.is((back.cause as ParentError).n, 7);
});

test('plain: no fields, no cause, not rebuilt as the class', () => {
  const back = errorFromWire(errorToWire(new ParentError('p', 1), true));
  assert.not.instance(back, ParentError);
  assert.is(back.message, 'p');
});

test('a kind registered twice is refused', () => {
  assert.throws(() => wireErrorClass('ParentError', { type: ParentError, fields: () => ({}), rebuild: (m) => new ParentError(m, 0) }), /registered twice/);
});

test.run();
