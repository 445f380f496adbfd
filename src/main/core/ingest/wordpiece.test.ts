import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWordPieceCounter } from './wordpiece.ts';

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

  const tokenizerJson = new URL('../../../../../shared/models/Xenova/all-MiniLM-L6-v2/tokenizer.json', import.meta.url);
  it.runIf(existsSync(tokenizerJson))('agrees with transformers.js on varied text', async () => {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = new URL('../../../../../shared/models/', import.meta.url).pathname;
    const tok = await AutoTokenizer.from_pretrained('Xenova/all-MiniLM-L6-v2');
    const samples = [
      'The quick brown fox jumps over the lazy dog.',
      'const x = await fetchData({ retries: 3, url: "https://example.com/api/v2" });',
      'Naïve café owners in Zürich earn 4,500 CHF/month — or so they say (2021).',
      'Mitochondrial DNA polymorphisms were associated with β-cell dysfunction in 12% of patients.',
      JSON.parse(readFileSync(new URL('../../../../../shared/bench/beir/scifact/corpus.jsonl', import.meta.url), 'utf8').split('\n')[0]!).text,
    ];
    for (const s of samples) {
      const ids = tok.encode(s, { add_special_tokens: false });
      expect(counter.count(s), s).toBe(ids.length);
    }
  });
});
