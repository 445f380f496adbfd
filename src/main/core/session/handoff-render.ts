import type { HandoffPackage } from '../../../shared/session.ts';
import { escapeControls as one } from '../../../shared/text-escape.ts';
import { quoteLines } from './quote.ts';

// Every list item and field value is one line (`one`): a title, a file or transcript name holding a newline cannot
// add an item or a section. Multi-line fields (summary, approach, compacted context) are the package's content.
// A multi-line field of ours (the executive summary) whose line would open a heading or a comment of the package is
// quoted; the agent's plan is the transcript's words and is quoted whole (quote.ts).
const guard = (text: string) => text.split('\n').map((l) => (/^\s*(#|<!--|```|~~~)/.test(l) ? `> ${one(l)}` : l)).join('\n');
const list = (items: string[], empty = '(none)') => (items.length === 0 ? empty : items.map((i) => `- ${one(i)}`).join('\n'));

/**
 * The package as Markdown, sections named by the seed's field names so a reader (or an agent) can map them back.
 * With a hash, a leading comment names the snapshot; the budget is measured without it (hash = null).
 */
export function renderHandoffMarkdown(p: HandoffPackage, hash: string | null): string {
  const m = p.handoff_metadata;
  const s = p.context_summary;
  const st = s.current_task_state;
  const out: string[] = [];
  if (hash) out.push(`<!-- contextpack handoff ${m.handoff_type} context_snapshot_hash sha256:${hash} -->`);
  out.push(`# HANDOFF PACKAGE (${m.handoff_type})`);
  out.push(
    `## handoff_metadata\n- from_agent_id: ${one(m.from_agent_id)}\n- to_agent_id: ${one(m.to_agent_id)}\n- handoff_type: ${m.handoff_type}\n- timestamp: ${one(m.timestamp)}\n- reason: ${one(m.reason)}\n- context_token_count: ${m.context_token_count}`,
  );
  out.push(`## context_summary\n### executive_summary\n${guard(s.executive_summary) || '(no executive summary)'}`);
  out.push(
    `### critical_decisions\n${list(
      s.critical_decisions.map(
        (d) =>
          `${d.id} [importance ${d.importance}]: ${d.decision || d.title}${d.rationale ? ` — Rationale: ${d.rationale}` : ''}${d.alternatives.length ? ` — Alternatives: ${d.alternatives.map((a) => `${a.name} (${a.reason})`).join('; ')}` : ''} (${d.source})`,
      ),
    )}`,
  );
  out.push(`### open_issues\n${list(s.open_issues.map((i) => `${i.id} [${i.severity.toUpperCase()}]: ${i.title}${i.detail && i.detail !== i.title ? ` — ${i.detail}` : ''} (${i.source})`))}`);
  const state = [`TASK: ${st.task || '(not stated)'}`];
  if (st.completion_percentage !== null) state.push(`Progress: ${st.completion_percentage}% complete`);
  state.push(...st.completed.map((c) => `✓ ${c}`), ...st.in_progress.map((c) => `⧖ ${c}`), ...st.not_started.map((c) => `☐ ${c}`));
  if (st.next_actions.length) state.push(`Next actions: ${st.next_actions.map((a, i) => `${i + 1}. ${a}`).join(' ')}`);
  if (st.blockers.length) state.push(`Blockers: ${st.blockers.join('; ')}`);
  out.push(`### current_task_state\n${state.map(one).join('\n')}`);
  out.push(`### blocking_dependencies\n${list(s.blocking_dependencies)}`);
  out.push(`## work_products\n### completed\n${list(p.work_products.completed)}\n### in_progress\n${list(p.work_products.in_progress)}\n### not_started\n${list(p.work_products.not_started)}`);
  const e = p.agent_expertise_match;
  out.push(
    `## agent_expertise_match\n- required_skills: ${one(e.required_skills.join(', ')) || '(none found)'}\n- to_agent_capabilities: ${one(e.to_agent_capabilities.join(', ')) || '(none recorded)'}\n- skill_match_score: ${e.skill_match_score === null ? 'unknown' : `${e.skill_match_score}${e.matched_skills.length ? ` (${one(e.matched_skills.join(', '))})` : ''}`} — ${one(e.basis)}`,
  );
  out.push(`## ownership_transfers\n${list(p.ownership_transfers.map((t) => `${t.section_id}: ${t.previous_owner ?? '—'} → ${t.owner_agent_id} (${t.ownership_type}, ${t.lock_reason})`))}`);
  out.push(`## next_actions\n### immediate\n${list(p.next_actions.immediate)}\n### short_term\n${list(p.next_actions.short_term)}\n### success_criteria\n${list(p.next_actions.success_criteria)}`);
  const n = p.agent_specific_notes;
  out.push(
    `## agent_specific_notes\n### from_agent_observations\n${list(n.from_agent_observations)}\n### suggested_approach\n${n.suggested_approach ? quoteLines(n.suggested_approach) : '(none)'}\n### known_pitfalls\n${list(n.known_pitfalls)}\n### useful_resources\n${list(n.useful_resources)}`,
  );
  const c = p.compaction;
  out.push(
    `## compaction\n- tokens_before: ${c.tokens_before}\n- tokens_after: ${c.tokens_after}\n- tokens_saved: ${c.tokens_saved}\n- elements_removed: ${c.elements_removed}\n- preservation_validation: ${c.preservation_validation}\n- reduction: ${(c.reduction_achieved * 100).toFixed(1)}% (target ${(c.reduction_target * 100).toFixed(0)}%${c.reduction_target_met ? ', met' : ', not met'})\n- budget: ${p.budget.package_tokens} / ${p.budget.max_tokens} tokens (${p.budget.encoding})`,
  );
  out.push(`## compacted_context\n${p.compacted_context || '(empty)'}`);
  return out.join('\n\n') + '\n';
}
