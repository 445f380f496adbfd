import { deflateSync } from 'node:zlib';
/** Builds a small valid PDF with one text line per page, so PDF tests need no binary fixtures. */
export function minimalPdf(pages: string[]): Uint8Array {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((text, i) => {
    const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, (c) => '\\' + c)}) Tj ET`;
    objects[pageIds[i]!] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`;
    objects[pageIds[i]! + 1] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/**
 * A PDF whose page content streams are Flate-compressed runs of the same text line (or, `textless`, of operators): a few hundred KB on disk that
 * inflate to `linesPerPage` lines per page (a "PDF bomb" when large). Binary, so offsets are counted in bytes.
 */
export function inflatingPdf(options: { pages: number; linesPerPage: number; line?: string; textless?: boolean; oneString?: boolean }): Uint8Array {
  const line = (options.line ?? 'the same sentence again and again').replace(/[()\\]/g, (c) => '\\' + c);
  const parts: Buffer[] = [];
  let length = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const offsets: number[] = [];
  const obj = (id: number, body: Buffer | string, stream?: Buffer) => {
    offsets[id] = length;
    push(`${id} 0 obj\n`);
    push(body);
    if (stream) {
      push('\nstream\n');
      push(stream);
      push('\nendstream');
    }
    push('\nendobj\n');
  };
  const pageIds = Array.from({ length: options.pages }, (_, i) => 4 + i * 2);
  push('%PDF-1.4\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${options.pages} >>`);
  obj(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  // Lines cycle over the page's height (text placed off the page is not extracted), so the stream stays repetitive.
  const cycle = Array.from({ length: 60 }, (_, i) => `1 0 0 1 72 ${780 - i * 12} Tm (${line}) Tj `).join('');
  // `textless`: the same count of operators that draw nothing and show no text (a save and a restore of the state),
  // so no text limit ever cuts them: only a bound on what the streams inflate to does.
  // `oneString`: the lines' text as one string literal of one Tj (pdf.js builds it whole before any text is seen).
  const content = options.oneString ? `BT /F1 10 Tf 72 700 Td (${line.repeat(options.linesPerPage)}) Tj ET` : options.textless ? 'q Q '.repeat(options.linesPerPage * 10) : `BT /F1 10 Tf ${cycle.repeat(Math.floor(options.linesPerPage / 60))}ET`;
  const deflated = deflateSync(Buffer.from(content, 'latin1'), { level: 9 });
  for (const id of pageIds) {
    obj(id, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${id + 1} 0 R >>`);
    obj(id + 1, `<< /Length ${deflated.length} /Filter /FlateDecode >>`, deflated);
  }
  const size = pageIds.length * 2 + 4;
  const xref = length;
  push(`xref\n0 ${size}\n0000000000 65535 f \n`);
  for (let id = 1; id < size; id++) push(`${String(offsets[id]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * A one-page PDF whose page content is `content` (Flate-compressed unless `raw`), plus further stream objects
 * (`extra`, each with its dictionary) that no page uses, such as an embedded font's binary data.
 */
export function pdfWithContent(content: Buffer, options: { raw?: boolean; extra?: { dict: string; data: Buffer }[] } = {}): Uint8Array {
  const parts: Buffer[] = [];
  let length = 0;
  const offsets: number[] = [];
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const obj = (id: number, body: string, stream?: Buffer) => {
    offsets[id] = length;
    push(`${id} 0 obj\n${body}`);
    if (stream) {
      push('\nstream\n');
      push(stream);
      push('\nendstream');
    }
    push('\nendobj\n');
  };
  push('%PDF-1.4\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [4 0 R] /Count 1 >>');
  obj(3, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  obj(4, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>');
  const data = options.raw ? content : deflateSync(content, { level: 9 });
  obj(5, `<< /Length ${data.length}${options.raw ? '' : ' /Filter /FlateDecode'} >>`, data);
  const extra = options.extra ?? [];
  extra.forEach((e, i) => obj(6 + i, e.dict.replace('%LENGTH%', String(e.data.length)), e.data));
  const size = 6 + extra.length;
  const xref = length;
  push(`xref\n0 ${size}\n0000000000 65535 f \n`);
  for (let id = 1; id < size; id++) push(`${String(offsets[id]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}
