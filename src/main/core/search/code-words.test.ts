import { describe, expect, it } from 'vitest';
import { codeWordTerms, identifierPhrases, spellingVariants, splitIdentifier } from './code-words.ts';

describe('code words (issue #23)', () => {
  it('splits camelCase identifiers, acronyms included', () => {
    expect(splitIdentifier('acceptsCharsets')).toEqual(['accepts', 'charsets']);
    expect(splitIdentifier('parseHTTPResponse')).toEqual(['parse', 'http', 'response']);
    expect(splitIdentifier('XMLHttpRequest')).toEqual(['xml', 'http', 'request']);
  });

  it('gives light spelling and stem variants', () => {
    expect(spellingVariants('writeable')).toEqual(['writable']);
    expect(spellingVariants('writable')).toEqual(['writeable']);
    expect(spellingVariants('cancelled')).toEqual(['canceled']);
    expect(spellingVariants('behaviour')).toEqual(['behavior']);
    expect(spellingVariants('serialise')).toEqual(['serialize']);
    expect(spellingVariants('normalized')).toEqual(['normalised']);
    expect(spellingVariants('table')).toEqual([]);
    expect(spellingVariants('capable')).toEqual([]);
  });

  it('adds camelCase parts, joined neighbours and variants after the query terms', () => {
    const t = codeWordTerms('fix acceptsCharsets clean up on writeable stream');
    expect(t.slice(0, 6)).toEqual(['fix', 'acceptscharsets', 'clean', 'up', 'writeable', 'stream']);
    expect(t).toEqual(expect.arrayContaining(['accepts', 'charsets', 'cleanup', 'writable', 'writeablestream']));
    // snake_case and dotted names are already split by the tokenizer: nothing new but their joins.
    expect(codeWordTerms('res.send')).toEqual(['res', 'send', 'ressend']);
  });

  it('takes compound identifiers as word sequences, not prose, camelCase or short parts', () => {
    expect(identifierPhrases('`package_name` resolution via res.send and os.path.join')).toEqual([['package', 'name'], ['res', 'send'], ['os', 'path', 'join']]);
    expect(identifierPhrases('__init__ of _private_helper')).toEqual([['private', 'helper']]);
    expect(identifierPhrases('IL-6 levels, e.g. in 1.5 mg, acceptsCharsets, end.')).toEqual([]);
  });
});
