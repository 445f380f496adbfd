// Seed 002's Context Coordination Rules for hierarchy sections: one owner agent per section, exclusive or
// shared-write, acquired / released / transferred with an append-only audit trail; a write by an agent that does not
// own an exclusively owned section is refused with a message naming the owner.
import type { Database } from 'better-sqlite3';
import type { OwnershipAuditView } from '../../../shared/api/contract.ts';
import { ValidationError } from '../memory/validate.ts';

export type OwnershipType = 'exclusive' | 'shared-write' | 'read-only';
export const OWNERSHIP_TYPES: readonly OwnershipType[] = ['exclusive', 'shared-write', 'read-only'];

/** The seed's ContextOwnership record. */
export interface ContextOwnership {
  section_id: string;
  owner_agent_id: string;
  ownership_type: OwnershipType;
  acquired_at: string;
  expires_at: string | null;
  previous_owner: string | null;
  lock_reason: string;
}

/** One row of the append-only ownership audit trail (the shape the API returns). */
export type OwnershipAuditEntry = OwnershipAuditView;

export interface OwnershipDeps {
  now?: () => Date;
}

/** A write or ownership change refused because another agent owns the section. */
export class OwnershipError extends Error {
  readonly section: string;
  readonly owner: string;
  constructor(message: string, section: string, owner: string) {
    super(message);
    this.name = 'OwnershipError';
    this.section = section;
    this.owner = owner;
  }
}

const nowIso = (deps: OwnershipDeps) => (deps.now ?? (() => new Date()))().toISOString();

/** '§2.1' / '2.1' / '§4.src/auth' / '§2.3-payment' → the id without '§'. */
export function sectionId(input: string): string {
  const id = input.trim().replace(/^§/, '');
  if (id === '' || !/^[1-4]\./.test(id) || /\s/.test(id)) {
    throw new ValidationError([{ field: 'section', message: `${JSON.stringify(input)} is not a section id (§1.0, §2.N, §3.N[.M], §4.<path>)` }], 'ownership');
  }
  return id;
}

function hasTables(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'section_ownership'").get() !== undefined;
}

/** A refusal found inside a transaction: recorded after the rollback, so the audit trail keeps it. */
class Refusal extends OwnershipError {
  readonly entry: Omit<OwnershipAuditEntry, 'id'>;
  constructor(message: string, section: string, owner: string, entry: Omit<OwnershipAuditEntry, 'id'>) {
    super(message, section, owner);
    this.entry = entry;
  }
}

/** Runs `fn` in an immediate transaction; a Refusal is audited on its own and rethrown as a plain OwnershipError. */
function guarded<T>(db: Database, fn: () => T): T {
  try {
    return db.transaction(fn).immediate();
  } catch (err) {
    if (err instanceof Refusal) {
      audit(db, err.entry);
      throw new OwnershipError(err.message, err.section, err.owner);
    }
    throw err;
  }
}

function audit(db: Database, e: Omit<OwnershipAuditEntry, 'id'>): void {
  db.prepare(
    'INSERT INTO ownership_audit (ts, section_id, action, agent_id, owner_agent_id, previous_owner, ownership_type, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(e.ts, e.section_id, e.action, e.agent_id, e.owner_agent_id, e.previous_owner, e.ownership_type, e.reason);
}

/** The live record (an expired one counts as released). */
export function getOwnership(db: Database, section: string, deps: OwnershipDeps = {}): ContextOwnership | null {
  if (!hasTables(db)) return null;
  const row = db.prepare('SELECT * FROM section_ownership WHERE section_id = ?').get(sectionId(section)) as ContextOwnership | undefined;
  if (!row) return null;
  if (row.expires_at !== null && Date.parse(row.expires_at) <= Date.parse(nowIso(deps))) return null;
  return row;
}

export function listOwnership(db: Database, deps: OwnershipDeps = {}): ContextOwnership[] {
  if (!hasTables(db)) return [];
  const now = Date.parse(nowIso(deps));
  return (db.prepare('SELECT * FROM section_ownership ORDER BY section_id').all() as ContextOwnership[]).filter((r) => r.expires_at === null || Date.parse(r.expires_at) > now);
}

export function ownershipAudit(db: Database, section?: string, limit = 100): OwnershipAuditEntry[] {
  if (!hasTables(db)) return [];
  return (section
    ? db.prepare('SELECT * FROM ownership_audit WHERE section_id = ? ORDER BY id DESC LIMIT ?').all(sectionId(section), limit)
    : db.prepare('SELECT * FROM ownership_audit ORDER BY id DESC LIMIT ?').all(limit)) as OwnershipAuditEntry[];
}

const describe = (o: ContextOwnership) => `§${o.section_id} is owned by ${o.owner_agent_id} (${o.ownership_type} since ${o.acquired_at}${o.lock_reason ? `: ${o.lock_reason}` : ''})`;

function requireTables(db: Database): void {
  if (!hasTables(db)) throw new Error('this store has no ownership tables (migration 50): open it with the current version');
}

export interface AcquireOptions extends OwnershipDeps {
  type?: OwnershipType;
  reason?: string;
  expiresAt?: string | null;
}

/** Takes (or re-types) ownership; refused, with an audit entry, while another agent holds it. */
export function acquireOwnership(db: Database, section: string, agent: string, opts: AcquireOptions = {}): ContextOwnership {
  requireTables(db);
  const id = sectionId(section);
  const type = opts.type ?? 'exclusive';
  if (!OWNERSHIP_TYPES.includes(type)) throw new ValidationError([{ field: 'type', message: `must be one of ${OWNERSHIP_TYPES.join(', ')}` }], 'ownership');
  return guarded(db, () => {
      const ts = nowIso(opts);
      const current = getOwnership(db, id, opts);
      if (current && current.owner_agent_id !== agent) {
        throw new Refusal(`cannot acquire: ${describe(current)}. Ask ${current.owner_agent_id} to release it or hand it off.`, id, current.owner_agent_id, { ts, section_id: id, action: 'refused', agent_id: agent, owner_agent_id: current.owner_agent_id, previous_owner: null, ownership_type: type, reason: `acquire refused: ${describe(current)}` });
      }
      const record: ContextOwnership = {
        section_id: id,
        owner_agent_id: agent,
        ownership_type: type,
        acquired_at: current?.acquired_at ?? ts,
        expires_at: opts.expiresAt ?? null,
        previous_owner: current?.previous_owner ?? null,
        lock_reason: opts.reason ?? current?.lock_reason ?? '',
      };
      saveOwnership(db, record);
      audit(db, { ts, section_id: id, action: 'acquire', agent_id: agent, owner_agent_id: agent, previous_owner: null, ownership_type: type, reason: opts.reason ?? 'acquired' });
      return record;
    });
}

/** Gives a section up; only its owner can. */
export function releaseOwnership(db: Database, section: string, agent: string, opts: OwnershipDeps & { reason?: string } = {}): void {
  requireTables(db);
  const id = sectionId(section);
  guarded(db, () => {
    const ts = nowIso(opts);
    const current = getOwnership(db, id, opts);
    if (!current) throw new OwnershipError(`§${id} has no owner to release`, id, '');
    if (current.owner_agent_id !== agent) {
      throw new Refusal(`cannot release: ${describe(current)}; only ${current.owner_agent_id} can release it`, id, current.owner_agent_id, { ts, section_id: id, action: 'refused', agent_id: agent, owner_agent_id: current.owner_agent_id, previous_owner: null, ownership_type: current.ownership_type, reason: `release refused: ${describe(current)}` });
    }
    db.prepare('DELETE FROM section_ownership WHERE section_id = ?').run(id);
    audit(db, { ts, section_id: id, action: 'release', agent_id: agent, owner_agent_id: null, previous_owner: agent, ownership_type: current.ownership_type, reason: opts.reason ?? 'released' });
  });
}

/** Hands a section from its owner to another agent (002's handoff step 4); previous_owner keeps the trail. */
export function transferOwnership(db: Database, section: string, from: string, to: string, opts: OwnershipDeps & { reason?: string; type?: OwnershipType } = {}): ContextOwnership {
  requireTables(db);
  const id = sectionId(section);
  return guarded(db, () => {
      const ts = nowIso(opts);
      const current = getOwnership(db, id, opts);
      if (current && current.owner_agent_id !== from) {
        throw new Refusal(`cannot transfer: ${describe(current)}; only ${current.owner_agent_id} can hand it off`, id, current.owner_agent_id, { ts, section_id: id, action: 'refused', agent_id: from, owner_agent_id: current.owner_agent_id, previous_owner: null, ownership_type: current.ownership_type, reason: `transfer to ${to} refused: ${describe(current)}` });
      }
      const record: ContextOwnership = {
        section_id: id,
        owner_agent_id: to,
        ownership_type: opts.type ?? current?.ownership_type ?? 'exclusive',
        acquired_at: ts,
        expires_at: null,
        previous_owner: from,
        lock_reason: opts.reason ?? `Handoff from ${from}`,
      };
      saveOwnership(db, record);
      audit(db, { ts, section_id: id, action: 'transfer', agent_id: from, owner_agent_id: to, previous_owner: from, ownership_type: record.ownership_type, reason: record.lock_reason });
      return record;
    });
}

/**
 * The seed's write rule: an unowned or shared-write section is writable by anyone, an exclusive (or read-only) one only
 * by its owner. A refusal is audited and names the owner. Writing does not take ownership: that is an explicit act.
 */
export function assertCanWrite(db: Database, section: string, agent: string, deps: OwnershipDeps = {}): void {
  if (!hasTables(db)) return;
  const current = getOwnership(db, section, deps);
  if (!current || current.ownership_type === 'shared-write' || current.owner_agent_id === agent) return;
  audit(db, { ts: nowIso(deps), section_id: current.section_id, action: 'refused', agent_id: agent, owner_agent_id: current.owner_agent_id, previous_owner: null, ownership_type: current.ownership_type, reason: `write refused: ${describe(current)}` });
  throw new OwnershipError(`write by ${agent} refused: ${describe(current)}`, current.section_id, current.owner_agent_id);
}

/** Sections an agent owns, for a handoff's ownership transfers. */
export function sectionsOwnedBy(db: Database, agent: string, deps: OwnershipDeps = {}): ContextOwnership[] {
  return listOwnership(db, deps).filter((o) => o.owner_agent_id === agent);
}

/** Inserts or replaces a section's ownership row. */
function saveOwnership(db: Database, record: ContextOwnership): void {
  db.prepare(
    `INSERT INTO section_ownership (section_id, owner_agent_id, ownership_type, acquired_at, expires_at, previous_owner, lock_reason)
     VALUES (@section_id, @owner_agent_id, @ownership_type, @acquired_at, @expires_at, @previous_owner, @lock_reason)
     ON CONFLICT(section_id) DO UPDATE SET owner_agent_id = excluded.owner_agent_id, ownership_type = excluded.ownership_type,
       acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, previous_owner = excluded.previous_owner, lock_reason = excluded.lock_reason`,
  ).run(record);
}
