import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../../../shared/types.ts';
import { IMPORT_FACTOR, importBlock, importHits } from './imports.ts';

const hit = (over: Partial<SearchHit>): SearchHit => ({
  chunkId: 1, documentId: 1, externalId: null, path: '/p/src/a.py', relPath: 'src/a.py', title: 'a.py', anchor: 'run', headingPath: '', lineStart: 40, lineEnd: 50, text: 'x', score: 1, ...over,
});

describe('import blocks (issue #23 item 3)', () => {
  it('finds a file\'s imports in Python, Go, Rust and CommonJS, closing an open group', () => {
    const py = ['"""Doc."""', '', 'import os', 'from typing import (', '    Any,', '    Callable,', ')', 'from .helpers import get_root_path', '', '', 'def run():', '    import json', '    return 1'];
    expect(importBlock(py)).toEqual({ start: 3, end: 8 });
    const go = ['package cobra', '', 'import (', '\t"fmt"', '\t"os"', ')', '', 'func run() {}'];
    expect(importBlock(go)).toEqual({ start: 3, end: 6 });
    const rs = ['//! fd', 'use std::io;', 'use crate::{', '    a,', '};', 'mod walk;', '', 'fn main() {}'];
    expect(importBlock(rs)).toEqual({ start: 2, end: 6 });
    const js = ["'use strict';", "var debug = require('debug')('express');", "const { a, b } = require('./utils');", '', 'exports.x = 1;'];
    expect(importBlock(js)).toEqual({ start: 2, end: 3 });
    expect(importBlock(['# Title', 'plain text'])).toBeNull();
    expect(importBlock(['import a', ...Array.from({ length: 60 }, (_, i) => `import m${i}`)], 40)).toEqual({ start: 1, end: 40 });
  });

  it('shows the imports of the best source files, scored below their hits, not for tests or when already shown', () => {
    const lines = ['import os', 'import sys', '', ...Array.from({ length: 60 }, (_, i) => `line ${i}`)];
    const kept = [
      { hit: hit({ documentId: 1 }), role: 'source' as const, relative: 1 },
      { hit: hit({ documentId: 2, relPath: 'tests/test_a.py' }), role: 'test' as const, relative: 0.9 },
      { hit: hit({ documentId: 3, lineStart: 1, lineEnd: 20 }), role: 'source' as const, relative: 0.8 },
    ];
    const out = importHits(kept, () => lines);
    expect(out.map((o) => [o.hit.documentId, o.hit.anchor, o.hit.lineStart, o.hit.lineEnd, o.relative, o.hit.text])).toEqual([[1, 'imports', 1, 2, IMPORT_FACTOR, 'import os\nimport sys']]);
    expect(importHits(kept, null)).toEqual([]);
  });
});
