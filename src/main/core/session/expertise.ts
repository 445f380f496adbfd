import type { Database } from 'better-sqlite3';
import type { ExpertiseMatch } from '../../../shared/session.ts';
import { classifyPath } from '../ingest/file-types.ts';

/*
 * Seed 002's `agent_expertise_match`, from what the store has seen rather than a declared skill list (a solo
 * developer's agents declare none): a skill is a programming language (by file extension) or a memory tag. The task
 * needs the languages of the files the handoff touches and the tags of its decisions and issues; the recipient has
 * shown the languages of files its recorded sessions modified and the tags of memories it wrote.
 */

/** Languages of the files (by extension; documents and binaries are not skills). */
export function languagesOf(paths: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const kind = classifyPath(p);
    if (kind !== 'binary' && kind.type === 'code' && kind.language) out.add(kind.language);
  }
  return [...out].sort();
}

export function normalizeSkills(skills: Iterable<string>): string[] {
  return [...new Set([...skills].map((s) => s.trim().toLowerCase()).filter((s) => s !== '' && s.length <= 40))].sort();
}

/** What `agent` has shown in this store: languages of files its sessions modified, tags of the memories it wrote. */
export function agentCapabilities(db: Database, agent: string): { skills: string[]; sessions: number; memories: number } {
  const hasSessions = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_sessions'").get() !== undefined;
  const files: string[] = [];
  let sessions = 0;
  if (hasSessions) {
    for (const row of db.prepare('SELECT summary FROM agent_sessions WHERE agent_id = ?').all(agent) as { summary: string }[]) {
      sessions++;
      try {
        const mods = (JSON.parse(row.summary) as { file_modifications?: { created?: string[]; modified?: string[] } }).file_modifications;
        files.push(...(mods?.created ?? []), ...(mods?.modified ?? []));
      } catch {
        // A summary this build cannot read names no files.
      }
    }
  }
  const tags: string[] = [];
  let memories = 0;
  for (const row of db.prepare('SELECT tags FROM memories WHERE agent_id = ? AND is_archived = 0').all(agent) as { tags: string }[]) {
    memories++;
    try {
      tags.push(...(JSON.parse(row.tags) as string[]).filter((t) => typeof t === 'string'));
    } catch {
      // Malformed tags add nothing.
    }
  }
  return { skills: normalizeSkills([...languagesOf(files), ...tags]), sessions, memories };
}

/** Tags of the memories with these ids (decision ids or memory ids), for the skills a handoff's records need. */
export function tagsOfMemories(db: Database, ids: Iterable<string>): string[] {
  const list = [...new Set(ids)];
  if (list.length === 0) return [];
  const rows = db
    .prepare('SELECT tags FROM memories WHERE id IN (SELECT value FROM json_each(?)) OR decision_id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(list), JSON.stringify(list)) as { tags: string }[];
  const out: string[] = [];
  for (const r of rows) {
    try {
      out.push(...(JSON.parse(r.tags) as string[]).filter((t) => typeof t === 'string'));
    } catch {
      // Malformed tags add nothing.
    }
  }
  return out;
}

/**
 * The share of the required skills the recipient has shown (0–1, two decimals); null when nothing is required or
 * nothing is known of the recipient (a fresh agent is not a poor match, just an unknown one).
 */
export function expertiseMatch(required: Iterable<string>, recipient: { skills: string[]; sessions: number; memories: number }, agent: string): ExpertiseMatch {
  const need = normalizeSkills(required);
  const has = normalizeSkills(recipient.skills);
  const known = recipient.sessions + recipient.memories > 0;
  const matched = need.filter((s) => has.includes(s));
  const score = need.length === 0 || !known ? null : Math.round((matched.length / need.length) * 100) / 100;
  const basis = !known
    ? `no recorded sessions or memories of ${agent} in this project`
    : `${agent}: ${recipient.sessions} recorded session${recipient.sessions === 1 ? '' : 's'}, ${recipient.memories} memor${recipient.memories === 1 ? 'y' : 'ies'}`;
  return { required_skills: need, to_agent_capabilities: has, matched_skills: matched, skill_match_score: score, basis };
}
