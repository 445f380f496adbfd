// PDFs whose reading would take far more memory than their size: refused by name before pdf.js builds anything;
// ordinary PDFs (inline images, embedded fonts with binary data) read as before.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { boundedPdfText, MAX_ARRAY, MAX_STRING, PdfBoundError, scanPdf } from './pdf-bounds.ts';
import { readers } from './readers.ts';
import { inflatingPdf, minimalPdf, pdfWithContent } from './testing/pdf.ts';
import { createWordPieceCounter } from './wordpiece.ts';

const options = { counter: createWordPieceCounter() };
const text = async (pdf: Uint8Array) => (await readers.pdf(pdf, '/p/x.pdf', options))[0]!.chunks.map((c) => c.text).join('\n');

describe('PDF memory bounds', () => {
  it('a string literal, a hex string or an array past its bound is refused with what and how big; the file is small', async () => {
    const n = MAX_STRING + 10;
    const cases: [string, Buffer, RegExp][] = [
      ['literal', Buffer.concat([Buffer.from('BT /F1 10 Tf 72 700 Td ('), Buffer.alloc(n, 'a'), Buffer.from(') Tj ET')]), /a string of \d+ bytes/],
      ['hex', Buffer.concat([Buffer.from('BT /F1 10 Tf 72 700 Td <'), Buffer.alloc(n, '4'), Buffer.from('> Tj ET')]), /a string of \d+ bytes/],
      ['array', Buffer.concat([Buffer.from('BT /F1 10 Tf ['), Buffer.from('(a) '.repeat(MAX_ARRAY + 10)), Buffer.from('] TJ ET')]), /an array of \d+ elements/],
    ];
    for (const [what, content, why] of cases) {
      const pdf = pdfWithContent(content);
      expect(pdf.length, what).toBeLessThan(20_000);
      await expect(readers.pdf(pdf, '/p/bomb.pdf', options), what).rejects.toThrow(why);
    }
    // Uncompressed, the same string is refused too (the file-size limit alone would let it through).
    await expect(readers.pdf(pdfWithContent(cases[0]![1], { raw: true }), '/p/raw.pdf', options)).rejects.toThrow(/a string of/);
  });

  it('streams that inflate past the bound are refused before pdf.js reads them, text or not', async () => {
    for (const pdf of [inflatingPdf({ pages: 2, linesPerPage: 6000 }), inflatingPdf({ pages: 1, linesPerPage: 30_000, textless: true })]) {
      await expect(boundedPdfText(pdf, 1_000_000, { maxInflatedBytes: 500_000 })).rejects.toThrow(PdfBoundError);
      await expect(boundedPdfText(pdf, 1_000_000, { maxInflatedBytes: 500_000 })).rejects.toThrow(/compressed streams inflate to more than/);
    }
    // Under the bound the same file reads.
    expect((await boundedPdfText(inflatingPdf({ pages: 2, linesPerPage: 60 }), 1_000_000)).pages).toHaveLength(2);
  });

  it('an inline image and an embedded font with binary bytes such as "(" and "[" are not taken for strings or arrays', async () => {
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i % 7 === 0 ? 0x28 : i % 11 === 0 ? 0x5b : (i * 37) & 0xff)));
    const content = Buffer.concat([Buffer.from('q BI /W 64 /H 64 /CS /G /BPC 8 ID '), binary, Buffer.from(' EI Q BT /F1 12 Tf 72 720 Td (After the image) Tj ET')]);
    const font = Buffer.concat([Buffer.from('('), Buffer.alloc(2 * MAX_STRING, 0x41)]);
    const pdf = pdfWithContent(content, { extra: [{ dict: `<< /Length %LENGTH% /Length1 ${font.length} /Filter /FlateDecode >>`, data: deflateSync(font) }] });
    const scan = await scanPdf(pdf, 1e9);
    expect(scan.longestString).toBeLessThan(MAX_STRING);
    expect(scan.largestArray).toBeLessThan(MAX_ARRAY);
    expect(await text(pdf)).toContain('After the image');
  });

  it('ordinary PDFs read as before', async () => {
    expect(await text(minimalPdf(['First page words', 'Second (page) words']))).toMatch(/First page words[\s\S]*Second \(page\) words/);
  });
});
