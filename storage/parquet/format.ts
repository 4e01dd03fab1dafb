/**
 * The Parquet format's numbers (apache/parquet-format `parquet.thrift`) and its one error, as
 * both the writer and the readers see them. Only the values this project writes or accepts
 * are named.
 */
import { wireErrorClass } from '../../shared/workerErrors.js';

/** `Type`: physical types. */
export const enum PhysicalType {
  INT64 = 2,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
}

/** `Encoding`. */
export const enum Encoding {
  PLAIN = 0,
  PLAIN_DICTIONARY = 2,
  RLE = 3,
  RLE_DICTIONARY = 8,
}

/** `FieldRepetitionType`. */
export const enum Repetition {
  REQUIRED = 0,
  OPTIONAL = 1,
  REPEATED = 2,
}

/** `PageType`. */
export const enum PageType {
  DATA_PAGE = 0,
  INDEX_PAGE = 1,
  DICTIONARY_PAGE = 2,
}

/** `CompressionCodec`. */
export const enum Codec {
  UNCOMPRESSED = 0,
  ZSTD = 6,
}

/** `ConvertedType` UTF8: a BYTE_ARRAY holding text. */
export const CONVERTED_UTF8 = 0;

/** The four bytes at both ends of every Parquet file. */
export const PARQUET_MAGIC = 'PAR1';

/**
 * A file, or part of one, outside the subset the fast reader handles (or malformed). Callers
 * that can fall back to the general reader catch exactly this.
 */
export class UnsupportedParquetError extends Error {
  override name = 'UnsupportedParquetError';
}

wireErrorClass('UnsupportedParquetError', {
  type: UnsupportedParquetError,
  fields: () => ({}),
  rebuild: (message, _f, cause) => new UnsupportedParquetError(message, cause === undefined ? undefined : { cause }),
});
