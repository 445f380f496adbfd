// A small labelled retrieval set for the real-model tests: short notes as a project might hold, and questions put
// the way people ask them. Some share words with their answer (BM25's ground), some only meaning (the model's).
// Written for these tests; each query has exactly one relevant note.

export const NOTES: Record<string, string> = {
  'backup.md': '# Backups\n\nThe database is copied to cold storage every night at 02:00; copies are kept for thirty days.',
  'deploy.md': '# Deploying\n\nReleases go out by pushing a signed tag; the pipeline builds the image and rolls it to staging first.',
  'oncall.md': '# On-call\n\nThe engineer on duty carries the pager for one week and hands over on Monday morning.',
  'cache.md': '# Cache\n\nResponses are kept in Redis for five minutes; a write to an item evicts its entry immediately.',
  'auth.md': '# Sign-in\n\nUsers log in with a one-time code sent by e-mail; sessions expire after twelve hours of inactivity.',
  'billing.md': '# Billing\n\nInvoices are issued on the first day of the month and are payable within fourteen days.',
  'fonts.md': '# Typography\n\nThe interface uses a single sans-serif typeface at three sizes; headings are never underlined.',
  'logging.md': '# Logs\n\nServices write structured JSON lines; the collector ships them to the search cluster within seconds.',
  'flags.md': '# Feature flags\n\nNew behaviour hides behind a flag that product managers can switch per customer.',
  'latency.md': '# Performance budget\n\nA page must render in under 200 milliseconds on a mid-range phone over 4G.',
  'hiring.md': '# Hiring\n\nCandidates do one paid take-home exercise and a conversation with two future colleagues.',
  'privacy.md': '# Personal data\n\nCustomer records are erased thirty days after an account is closed, on request sooner.',
  'i18n.md': '# Translations\n\nStrings live in one catalogue per language; volunteers translate them on a shared platform.',
  'outage.md': '# Incident review\n\nAfter an outage the team writes a blameless report within five working days.',
  'budget.md': '# Cloud spending\n\nEach team has a monthly ceiling for servers; an alert fires at eighty percent of it.',
  'office.md': '# Office\n\nThe office opens at eight; visitors sign in at the front desk and wear a badge.',
  'coffee.md': '# Kitchen\n\nThe espresso machine is descaled every Friday; beans are ordered from a local roaster.',
  'security.md': '# Vulnerability reports\n\nOutside researchers report flaws to a dedicated address and receive a reward.',
  'mobile.md': '# Mobile apps\n\nThe iOS and Android apps share one codebase and ship every second Thursday.',
  'search.md': '# Search\n\nThe product search ranks items by text match first and by popularity second.',
};

export type LabelledQuery = { text: string; relevant: string };

export const QUERIES: LabelledQuery[] = [
  { text: 'how long do we retain nightly database copies', relevant: 'backup.md' },
  { text: 'who answers emergencies outside working hours', relevant: 'oncall.md' },
  { text: 'when does a logged-in user get signed out automatically', relevant: 'auth.md' },
  { text: 'deadline for paying an invoice', relevant: 'billing.md' },
  { text: 'what happens to personal information when someone deletes their account', relevant: 'privacy.md' },
  { text: 'how fast must screens load on phones', relevant: 'latency.md' },
  { text: 'turning a new capability on for just one client', relevant: 'flags.md' },
  { text: 'postmortem after the service went down', relevant: 'outage.md' },
  { text: 'warning when infrastructure costs approach the limit', relevant: 'budget.md' },
  { text: 'bug bounty for security researchers', relevant: 'security.md' },
  { text: 'how often are the phone applications released', relevant: 'mobile.md' },
  { text: 'which typeface does the UI use', relevant: 'fonts.md' },
];

/** nDCG@10 with one relevant document per query: 1 / log2(rank + 1) when found in the top 10, else 0. */
export function meanNdcg10(rankings: readonly (readonly string[])[], queries: readonly LabelledQuery[] = QUERIES): number {
  let sum = 0;
  queries.forEach((q, i) => {
    const rank = rankings[i]!.slice(0, 10).indexOf(q.relevant);
    if (rank >= 0) sum += 1 / Math.log2(rank + 2);
  });
  return sum / queries.length;
}
