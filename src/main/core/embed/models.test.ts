import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_ID, MODEL_SPECS, resolveModelSpec, withPrefix } from './models.ts';

describe('model registry', () => {
  it('defaults to all-MiniLM-L6-v2, q8, mean pooling, 256 word pieces, no prefixes', () => {
    expect(resolveModelSpec(DEFAULT_MODEL_ID)).toEqual({
      id: 'Xenova/all-MiniLM-L6-v2',
      dims: 384,
      pooling: 'mean',
      normalize: true,
      queryPrefix: '',
      passagePrefix: '',
      maxTokens: 256,
      dtype: 'q8',
    });
  });

  it('knows how bge, gte and e5 want to be used', () => {
    expect(MODEL_SPECS['Xenova/bge-small-en-v1.5']).toMatchObject({
      pooling: 'cls',
      queryPrefix: 'Represent this sentence for searching relevant passages: ',
      passagePrefix: '',
    });
    expect(MODEL_SPECS['Xenova/gte-small']).toMatchObject({ pooling: 'mean', queryPrefix: '', passagePrefix: '' });
    expect(MODEL_SPECS['Xenova/e5-small-v2']).toMatchObject({ queryPrefix: 'query: ', passagePrefix: 'passage: ' });
  });

  it('lets settings override a known model without losing its id', () => {
    const spec = resolveModelSpec('Xenova/e5-small-v2', { dtype: 'fp32', maxTokens: 128, pooling: undefined });
    expect(spec).toMatchObject({ id: 'Xenova/e5-small-v2', dtype: 'fp32', maxTokens: 128, pooling: 'mean' });
  });

  it('accepts an unknown model only with explicit pooling', () => {
    expect(() => resolveModelSpec('someone/new-model')).toThrow(/unknown embedding model "someone\/new-model".*pooling/);
    expect(resolveModelSpec('someone/new-model', { pooling: 'cls', queryPrefix: 'q: ' })).toMatchObject({
      id: 'someone/new-model',
      pooling: 'cls',
      queryPrefix: 'q: ',
      passagePrefix: '',
      dtype: 'q8',
    });
  });

  it('prefixes by kind', () => {
    const e5 = resolveModelSpec('Xenova/e5-small-v2');
    expect(withPrefix(e5, 'query', 'how')).toBe('query: how');
    expect(withPrefix(e5, 'passage', 'text')).toBe('passage: text');
  });
});
