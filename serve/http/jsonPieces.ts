/**
 * The pieces a JSON answer is written from, in order: UTF-8 bytes, or a row group's rows still
 * as row text stores them (StoredRowText: a DEFLATE chunk with its text's length and CRC-32).
 * A gzip answer splices stored rows as they are (gzipSplice.ts); every other answer asks for
 * their text, so a page's first touch inflates only when the answer needs the text.
 */
import type { StoredRowText } from '../../storage/rowText/rowJson.js';

export type JsonPiece = Buffer | StoredRowText;

export function isStoredRows(piece: JsonPiece): piece is StoredRowText {
  return !Buffer.isBuffer(piece);
}

/** Bytes the piece's text has. */
export function pieceLength(piece: JsonPiece): number {
  return isStoredRows(piece) ? piece.textBytes : piece.length;
}

/** Every piece as its text. */
export function piecesText(pieces: readonly JsonPiece[]): Promise<Buffer[]> {
  return Promise.all(pieces.map((p) => (isStoredRows(p) ? p.text() : p)));
}
