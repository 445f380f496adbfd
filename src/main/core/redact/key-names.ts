/*
 * Shared by the key-context rules (rules.ts) and the multi-line value tracker (multiline.ts).
 */
// Key names that mark the value next to them as a credential in config-like text.
// Matched case-insensitively; the `(?-i:...)` parts keep camelCase humps meaningful,
// so `storageKey` and `tokenSecret` count but `monkey`, `tokenizer`, `tokens` do not; likewise `dbPass`, `smtp_pass`
// and `pass` count but `bypass`, `compass`, `generateFastpass` do not.
export const SECRET_KEY_NAME =
  '\\b(?:[A-Za-z0-9_.-]*(?:password|passwd|passphrase|passcode|pwd|secret|token|api[_.-]?key|apikey|access[_.-]?key|' +
  'private[_.-]?key|credentials?|session[_.-]?key|signing[_.-]?key|encryption[_.-]?key|master[_.-]?key|' +
  'conn(?:ection)?[_.-]?str(?:ing)?)(?:[_.-][A-Za-z0-9_.-]*|(?-i:[A-Z0-9])[A-Za-z0-9_.-]*)?|' +
  '(?:[A-Za-z0-9_.-]*[_.-])?(?:pass|pw|pswd|creds)|[A-Za-z0-9_.-]*[a-z0-9](?-i:P(?:ass|w|swd)|Creds)|(?:[A-Za-z0-9_.-]*[_.-])?auth|' +
  '[A-Za-z0-9_.-]*(?:[_.-]key|[a-z0-9](?-i:K)ey))';

