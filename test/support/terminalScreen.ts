/**
 * What a terminal shows after some output: a small model of the cursor movements progress bars
 * use (CR, LF, ESC[nG, ESC[nA/B, ESC[K, ESC[2K, ESC[J, ESC 7/8). Rows grow without limit (no
 * scrolling off); colours and modes are ignored. Enough to tell whether two writes landed on
 * the same line.
 */
export function screenOf(output: string): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  let saved = { row: 0, col: 0 };
  const line = () => (rows[row] ??= []);
  for (let i = 0; i < output.length; i++) {
    const ch = output[i]!;
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      line();
    } else if (ch === '\x1b') {
      const next = output[i + 1];
      if (next === '7') {
        saved = { row, col };
        i++;
      } else if (next === '8') {
        ({ row, col } = saved);
        i++;
      } else if (next === '[') {
        const m = /^\[([?\d;]*)([A-Za-z])/.exec(output.slice(i + 1, i + 20));
        if (!m) continue;
        i += m[0].length;
        const n = Number(m[1]!.replace('?', '') || '0');
        switch (m[2]) {
          case 'G':
            col = Math.max(n, 1) - 1;
            break;
          case 'A':
            row = Math.max(0, row - Math.max(n, 1));
            break;
          case 'B':
            row += Math.max(n, 1);
            line();
            break;
          case 'K':
            if (m[1] === '2') rows[row] = [];
            else line().length = Math.min(line().length, col);
            break;
          case 'J':
            line().length = Math.min(line().length, col);
            rows.length = row + 1;
            break;
          default:
            break; // modes (cursor visibility, wrapping), colours
        }
      }
    } else {
      const l = line();
      while (l.length < col) l.push(' ');
      l[col++] = ch;
    }
  }
  return rows.map((r) => r.join('').trimEnd());
}
