// The markers extract() reads, explicit ("DECISION:", "TODO:") and in plain words ("Remaining: …", "Next I'll …").


export const DECISION = /^\s*(?:[-*>]\s*)?(?:\[([^\]]+)\]\s*)?(?:#{1,4}\s*)?(?:\*\*)?DECISION(?:\*\*)?\s*[:—–-]\s*(?:\*\*)?\s*(.+)$/i;
export const IMPLICIT_DECISION = /^\s*(?:[-*]\s*)?((?:we )?decided to .+|chose .+ (?:because|over) .+)$/i;
/** "we keep X instead of Y because Z", "I'll use X rather than Y since Z", "going with X over Y: Z". */
export const PLAIN_DECISION =
  /\b(?:we(?:'ll| will)?|I(?:'ll| will)?|let's|going to|decided to|chose to|opted to)\s+(keep|use|go with|stick with|stay with|choose|pick|prefer|switch to|adopt)\s+(.+?)\s+(?:instead of|rather than|over)\s+(.+?)(?:\s*(?:,\s*)?(?:because|since|as|:|—|–|-)\s+(.+?))?[.!]?$/i;
/** "I'll use Python since it's the fastest to prototype": a choice with its reason, no alternative named. */
export const REASONED_CHOICE = /\b(?:we(?:'ll| will)|I(?:'ll| will)|let's)\s+(use|go with|keep|stick with|choose|pick)\s+(.+?)\s*,?\s+(?:because|since)\s+(.+?)[.!]?$/i;
export const REJECTED = /^\s*(?:[-*]\s*)?(?:\*\*)?(?:Alternatives? rejected|Rejected alternatives?|Rejected|Not chosen|Considered and rejected)(?:\*\*)?\s*:\s*(.+)$/i;
export const LABELS = ['Rationale', 'Alternatives considered', 'Alternatives', 'Expected impact', 'Impact', 'Validation criteria', 'Validated', 'Validation', 'Agent', 'Importance', 'Context'];
export const LABEL_RE = new RegExp(`\\b(${LABELS.map((l) => l.replace(/ /g, '\\s+')).join('|')})\\s*:`, 'gi');
export const ISSUE_KEY = /\b((?:BUG|ISSUE)-\d+)\b/;
export const TODO = /\bTODO:\s*(.+)$/;
export const SEVERITY = /\[(CRITICAL|HIGH|MEDIUM|LOW)\]|\bseverity\s*:\s*(critical|high|medium|low)\b/i;
export const RESOLVED = /\b(resolved|fixed|closed|done)\b/i;
export const LEAD = String.raw`^\s*(?:[-*]\s*|\d+[.)]\s*)?(?:#{1,4}\s*)?(?:\*\*)?`;
export const TASK = new RegExp(`${LEAD}(?:TASK|Current task)(?:\\*\\*)?\\s*:\\s*(.+)$`, 'i');
export const PROGRESS = new RegExp(`${LEAD}Progress(?:\\*\\*)?\\s*:\\s*(?:about |~|approx\\.? )?(\\d{1,3})\\s*%`, 'i');
export const PCT_COMPLETE = /\b(\d{1,3})\s*%\s*(?:complete|completed|done|finished)\b|\b(?:about|around|roughly|~)\s*(\d{1,3})\s*%/i;
/** A status written mid-line: "Status: …", "Current status: …". */
export const STATUS = /(?:^\s*(?:[-*]\s*|#{1,4}\s*)?|[.;!]\s+)(?:Current )?Status\s*:\s*(.+)$/;
export const NEXT = new RegExp(`${LEAD}(Next actions|Next steps?|Next up|Next|Optional Next Step|Immediate next steps?)(?:\\*\\*)?\\s*:\\s*(?:\\*\\*)?\\s*(.*)$`, 'i');
/** "Next I'll wire the step.", "Next, I will add tests", "Next we need to …". */
export const NEXT_SENTENCE = /\bNext,?\s+(?:I(?:'ll| will| need to| should)|we(?:'ll| will| need to| should)|let's)\s+(.+?)(?:[.!?](?=\s|$)|$)/i;
/** A Markdown heading that opens a list of next steps: "## Next Steps - Your Choice", "### Recommended Next Action". */
export const NEXT_HEADING = /^\s*#{1,4}\s*(?:\W+\s*)?(?:Recommended |Suggested |Immediate |Possible )?Next (?:Steps?|Actions?)\b(?!\s*:\s*\S)/i;
/** The same for remaining work: "## Pending Tasks", "### Remaining work". */
export const REMAINING_HEADING = /^\s*#{1,4}\s*(?:\W+\s*)?(?:Remaining|Pending|Open|Outstanding) (?:Tasks?|Work|Items?|Steps?)\b(?!\s*:\s*\S)/i;
export const REMAINING = /\b(Remaining(?: work| tasks?| steps?)?|Pending(?: work| tasks?| steps?)?|Still to do|Left to do|Outstanding(?: work| tasks?)?|Not yet done|To do|TODOs?)\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.*)$/i;
export const CURRENT_WORK = new RegExp(`${LEAD}(Current Work|Currently working on|In progress|Working on)(?:\\*\\*)?\\s*:\\s*(?:\\*\\*)?\\s*(.*)$`, 'i');
export const BLOCKERS = /(?:^\s*(?:[-*]\s*)?(?:\*\*)?Blockers?(?:\*\*)?\s*:|\bBlocked (?:by|on)\s*:?)\s*(.+)$/i;
export const NONE = /^(none|n\/a|no(?:ne| explicit| pending| next| further| active| open)?\b.*\b(?:tasks?|steps?|blockers?|required|pending)\b|nothing\b)/i;
export const DONE_MARK = /^\s*(?:[-*]\s*)?(?:✓|✔|☑|✅|\[x\])\s*(.+)$/i;
export const WIP_MARK = /^\s*(?:[-*]\s*)?(?:⧖|⏳|🔄|\[~\]|\[-\])\s*(.+)$/;
export const TODO_MARK = /^\s*(?:[-*]\s*)?(?:☐|⬜|\[ \])\s*(.+)$/;
export const LIST_ITEM = /^\s*(?:[-*+•]|\d+[.)])\s+(.+)$/;
export const ACCEPTANCE = /^\s*(?:#{1,4}\s*)?(?:\*\*)?(Acceptance criteria|Success criteria|Acceptance|Done when)(?:\*\*)?\s*:?\s*(.*)$/i;
/** Mid-line: "…, and the work is done. Acceptance: a; b". */
export const ACCEPTANCE_INLINE = /\b(?:Acceptance criteria|Success criteria|Acceptance|Done when)\s*:\s*(.+)$/i;
export const LEARNING = /^\s*(?:[-*]\s*)?(?:\*\*)?(Lesson(?: learned)?|Learning|Learned|Takeaway)(?:\*\*)?\s*:\s*(.+)$/i;
export const DONE_LINE = /^\s*(?:[-*]\s*)?(?:\*\*)?(Done|Completed|Fixed|Implemented|Added)(?:\*\*)?\s*:\s*(.+)$/i;
export const PLAN = /^\s*(?:#{1,4}\s*)?(?:\*\*)?((?:updated |new |revised )?plan)(?:\*\*)?\s*:?\s*(.*)$/i;
export const FENCE = /^\s*(```|~~~)/;
export const WRITE_TOOLS = /^(edit|write|multiedit|notebookedit|str_replace(?:_editor|_based_edit_tool)?|create_file|write_file|write_to_file|edit_file|replace_in_file|apply_patch|replace)$/i;
export const READ_TOOLS = /^(read|read_file|view|cat|open_file)$/i;
