/**
 * A failure of the store (issue 50): one line naming the store and what was tried, and whether
 * trying later may work (the store down, slow or busy) or not (refused credentials, no such
 * bucket). Apart from objectStore.ts so that a server without a store never loads the AWS SDK
 * to recognise one.
 */
export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    message: string,
    /** True when the same call may work later. */
    readonly retriable: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
