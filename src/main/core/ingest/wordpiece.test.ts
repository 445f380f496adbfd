import { describe, expect, it } from 'vitest';
import { TOKENIZER_FIXTURES_DIR } from '../embed/testing/tiny-model.ts';
import { createWordPieceCounter, loadVocab } from './wordpiece.ts';

const counter = createWordPieceCounter();

describe('word piece counter', () => {
  it('matches the real all-MiniLM-L6-v2 tokenizer on the model card sentence', () => {
    // [101, 2023, 2003, 2019, 2742, 6251, 102] minus [CLS]/[SEP]
    expect(counter.count('This is an example sentence')).toBe(5);
  });

  it('splits unknown words into pieces and punctuation into tokens', () => {
    expect(counter.count('hello, world!')).toBe(4);
    expect(counter.count('tokenization')).toBeGreaterThan(1);
    expect(counter.count('')).toBe(0);
    expect(counter.count('Café résumé')).toBe(counter.count('cafe resume'));
  });

  it('agrees with transformers.js on varied text', async () => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = TOKENIZER_FIXTURES_DIR;
    const tok = await AutoTokenizer.from_pretrained('Xenova/all-MiniLM-L6-v2');
    const samples = [
      'The quick brown fox jumps over the lazy dog.',
      'const x = await fetchData({ retries: 3, url: "https://example.com/api/v2" });',
      'Naïve café owners in Zürich earn 4,500 CHF/month — or so they say (2021).',
      'Mitochondrial DNA polymorphisms were associated with β-cell dysfunction in 12% of patients.',
      // SciFact's first abstract (BEIR, CC BY-SA), as a long scientific passage.
      'Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities. A line scan diffusion-weighted magnetic resonance imaging (MRI) sequence with diffusion tensor analysis was applied to measure the apparent diffusion coefficient, to calculate relative anisotropy, and to delineate three-dimensional fiber architecture in cerebral white matter in preterm (n = 17) and full-term infants (n = 7).',
    ];
    for (const s of samples) {
      const ids = tok.encode(s, { add_special_tokens: false });
      expect(counter.count(s), s).toBe(ids.length);
    }
  });

  it('counts ASCII text on its fast path exactly as the Unicode path does', () => {
    // Appending a separated non-ASCII word sends the same text down the regex path; the tokens cannot merge.
    const viaUnicode = (t: string) => counter.count(`${t} é`) - counter.count('é');
    const samples = [
      'res.send = function send(body) { return this.status(200); }',
      'The TRANSFER-Encoding header: chunked; 42 items @ 3.5% (approx) #tag ~x `code` $var [a]|{b}\\c^d',
      'def url_for(endpoint: str, **values) -> str:  # noqa: E501\t\x01',
      Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join(''),
    ];
    for (const t of samples) expect(counter.count(t), t).toBe(viaUnicode(t));
  });

  it('counts mixed text segment by segment exactly as the whole text', () => {
    // Joined with spaces, the segments' counts add up: no token spans a space.
    const parts = ['naïve', 'café', 'İstanbul', 'µg/ml', '5°C', '日本語のテキスト', 'x\u00a0y', 'a\u0301b', 'plain-ascii_words', '(Ωmega)'];
    expect(counter.count(parts.join(' '))).toBe(parts.reduce((n, p) => n + counter.count(p), 0));
    expect(counter.count('naïve café')).toBe(counter.count('naive cafe'));
  });

  it('finds the same pieces as trying every substring from the longest down, past the word cache filling up', () => {
    const vocab = loadVocab();
    // The textbook greedy longest match, one substring at a time.
    const reference = (word: string): number => {
      if (word.length > 100) return 1;
      let n = 0;
      for (let start = 0; start < word.length; ) {
        let end = word.length;
        while (end > start && !vocab.has((start > 0 ? '##' : '') + word.slice(start, end))) end--;
        if (end === start) return 1;
        n++;
        start = end;
      }
      return n;
    };
    const fresh = createWordPieceCounter(vocab);
    let x = 11;
    const rnd = (n: number) => ((x = (x * 1103515245 + 12345) % 2147483648), x % n);
    const pieces = [...vocab].filter((p) => /^(##)?[a-z0-9]+$/.test(p)).map((p) => p.replace(/^##/, ''));
    const words: string[] = [];
    // Vocabulary pieces glued together (real multi-piece words), random letters, digits, and over-long words.
    for (let i = 0; i < 90_000; i++) {
      const kind = i % 3;
      if (kind === 0) words.push(Array.from({ length: 1 + rnd(4) }, () => pieces[rnd(pieces.length)]).join(''));
      else if (kind === 1) words.push(Array.from({ length: 1 + rnd(24) }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[rnd(36)]).join(''));
      else words.push(pieces[rnd(pieces.length)]! + 'q'.repeat(rnd(3)) + String(rnd(1000)));
    }
    words.push('a'.repeat(100), 'a'.repeat(101), 'z', '0');
    // Every piece alone and every continuation after a short word, so the longest pieces of each kind are met.
    for (const p of vocab) if (/^(##)?[a-z0-9]+$/.test(p)) words.push(p.startsWith('##') ? `qz${p.slice(2)}` : p);
    for (const w of words) expect(fresh.count(w), w).toBe(reference(w));
    // Counted a second time, from the word table or (once it is half full) from the map behind it.
    for (const w of words.slice(0, 5000)) expect(fresh.count(w), w).toBe(reference(w));
  });

  it('takes a vocabulary of any size (its tables are sized for it)', () => {
    const words = Array.from({ length: 50_000 }, (_, i) => `w${i.toString(36)}x`);
    const big = createWordPieceCounter(new Set([...words, '##ing', '[UNK]']));
    // Each word then "##ing": two pieces only if the word itself was found (a missing one makes the whole [UNK]).
    expect(words.filter((w) => big.count(`${w}ing`) !== 2)).toEqual([]);
    expect(big.count('zzzz')).toBe(1);
  });
});

