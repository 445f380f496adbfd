// A PDF's text, page by page, with pdf.js (unpdf): the part of reading a PDF that may take a lot of memory, so it runs
// after pdf-bounds.ts has checked the file; see there for why.
import { getDocumentProxy } from 'unpdf';

export interface PdfText {
  title: string | null;
  pages: string[];
  /** Where the extracted-text limit cut the document, if it did. */
  cut: { page: number; of: number } | null;
}

/** The document's text, at most `limit` characters; throws with pdf.js's reason on a malformed file. */
export async function extractPdfText(bytes: Uint8Array, limit: number): Promise<PdfText> {
  const pages: string[] = [];
  let title: string | null = null;
  let cut: PdfText['cut'] = null;
  let doc: Awaited<ReturnType<typeof getDocumentProxy>> | undefined;
  try {
    doc = await getDocumentProxy(bytes, { verbosity: 0 });
    const meta = await doc.getMetadata().catch(() => null);
    const info = meta?.info as { Title?: unknown } | undefined;
    if (typeof info?.Title === 'string' && info.Title.trim()) title = info.Title.trim();
    // Page by page, streamed, against a budget: a content stream that inflates without end is cut where the budget
    // runs out instead of being decoded whole (unpdf's extractText decodes every page at once).
    let used = 0;
    for (let n = 1; n <= doc.numPages && !cut; n++) {
      const page = await doc.getPage(n);
      const reader = page.streamTextContent().getReader();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        // The same text as unpdf's per-page extraction: each item's string, a newline where the item ends a line.
        for (const item of value.items) if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
        if (used + text.length > limit) {
          await reader.cancel(new Error('extracted text limit reached'));
          text = text.slice(0, limit - used);
          cut = { page: n, of: doc.numPages };
          break;
        }
      }
      used += text.length;
      pages.push(text);
      page.cleanup();
    }
  } finally {
    await doc?.loadingTask.destroy().catch(() => {});
  }
  return { title, pages, cut };
}
