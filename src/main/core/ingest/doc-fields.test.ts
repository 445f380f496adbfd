import { describe, expect, it } from 'vitest';
import { docFieldsText, identifierWords } from './doc-fields.ts';

describe('document fields for ranking', () => {
  it('splits identifiers into words', () => {
    expect(identifierWords('hookRunnerGenerator')).toBe('hook Runner Generator');
    expect(identifierWords('HTTPServer')).toBe('HTTP Server');
    expect(identifierWords('bash_completionsV2')).toBe('bash completions V 2');
    expect(identifierWords('res.send')).toBe('res send');
  });

  it('keeps each path segment and symbol as written, plus its words when they differ', () => {
    const f = docFieldsText('lib/contentType.js', ['acceptsCharsets', 'send', 'send']);
    expect(f.path).toBe('lib / contentType.js content Type js');
    expect(f.symbols).toBe('acceptsCharsets accepts Charsets\nsend');
    expect(docFieldsText('lib/content-type.js', []).path).toBe('lib / content-type.js');
  });
});
