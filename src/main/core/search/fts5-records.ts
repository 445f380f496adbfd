// FTS5's own records as the scorer reads them (fts-scorer.ts): the docsize rows (each row's token count) and the
// averages record, both of SQLite varints.

/** Each row's token count over all columns (FTS5's xColumnSize(-1)), indexed by row id, and a row -> slot scratch array. */
export interface RowLengths {
  sizes: Uint32Array;
  /** Shared by every query (-1: none); each query puts back the -1s it changed. */
  slots: Int32Array;
  /** Row ids too sparse for arrays (most chunks deleted since): FTS5 answers for this version. */
  sparse: boolean;
  get(row: number): number;
}

/**
 * The lengths from the docsize rows as one string ("id:hex,..."): the id in decimal, then the blob's bytes,
 * varints of each column's token count. The previous slot array is kept when it is big enough (it is all -1).
 */
export function readLengths(list: string, rowCount: number, previous: RowLengths | null): RowLengths {
  const limit = rowCount * 4 + 65_536;
  let max = 0;
  const ids: number[] = [];
  const totals: number[] = [];
  for (let at = 0; at < list.length; ) {
    let id = 0;
    let c = list.charCodeAt(at);
    for (; c !== 58; c = list.charCodeAt(++at)) id = id * 10 + (c - 48);
    at++;
    let total = 0;
    let v = 0;
    for (; at < list.length && list.charCodeAt(at) !== 44; at += 2) {
      const byte = (hexDigit(list.charCodeAt(at)) << 4) | hexDigit(list.charCodeAt(at + 1));
      v = v * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) {
        total += v;
        v = 0;
      }
    }
    at++;
    ids.push(id);
    totals.push(total);
    if (id > max) max = id;
  }
  const none = new Uint32Array(0);
  if (max > limit) return { sizes: none, slots: previous?.slots ?? new Int32Array(0), sparse: true, get: () => 0 };
  const sizes = new Uint32Array(max + 1);
  for (let i = 0; i < ids.length; i++) sizes[ids[i]!] = totals[i]!;
  const slots = previous && previous.slots.length > max ? previous.slots : new Int32Array(Math.ceil((max + 1) * 1.25)).fill(-1);
  return { sizes, slots, sparse: false, get: (row) => sizes[row]! };
}

const hexDigit = (c: number) => (c <= 57 ? c - 48 : c - 55);

/** The averages record: the row count, then each column's token total; returns [rows, average row length]. */
export function averages(block: Buffer): [number, number] {
  let [rows, at] = readVarint(block, 0);
  let tokens = 0;
  while (at < block.length) {
    const [v, next] = readVarint(block, at);
    tokens += v;
    at = next;
  }
  return [rows, tokens / rows];
}

/** SQLite's varint: big-endian 7-bit groups with a continuation bit; the ninth byte carries 8 bits. */
function readVarint(buf: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 9; i++) {
    const byte = buf[at + i]!;
    if (i === 8) return [v * 256 + byte, at + 9];
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [v, at + i + 1];
  }
  return [v, at + 9];
}
