// Seed 003's ADK state layout read into a packet request: the step and its acceptance checklist from `state.plan`,
// the step's tools from `state.tools`, artifact references from `state.knowledge` (or the keys the app names).
// Whatever shape the app keeps, the task text is deterministic: the same state gives the same task, byte for byte.

export interface StateKeys {
  /** The plan: a string (the task as written) or { goal, step, acceptance, constraints, steps, current_step }. Default `plan`. */
  plan: string;
  /** The step's tool names (string[]); absent → every tool the agent has. Default `tools`. */
  tools: string;
  /** Retrieval knowledge: { artifacts: string[] } artifact names or URIs listed by reference. Default `knowledge`. */
  knowledge: string;
}

export const DEFAULT_STATE_KEYS: StateKeys = { plan: 'plan', tools: 'tools', knowledge: 'knowledge' };

export interface StepPlan {
  /** The TASK text (goal, step, constraints, acceptance checklist); null when the state holds no plan. */
  task: string | null;
  /** Tool names the step allows; null → no restriction. */
  tools: string[] | null;
  /** Problems with the state's shape, said once per call (the pack is still built from what could be read). */
  problems: string[];
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : null);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((x): x is string => x !== null) : str(v) !== null ? [str(v)!] : []);
const oneLine = (s: string) => s.replace(/\s*[\r\n]+\s*/g, ' ');

/** The current step of a plan: `step`, else `steps[current_step]` (an index or a step id), else the first step not done. */
function currentStep(plan: Rec): { step: unknown; problems: string[] } {
  if (plan.step !== undefined) return { step: plan.step, problems: [] };
  if (!Array.isArray(plan.steps)) return { step: undefined, problems: [] };
  const steps = plan.steps as unknown[];
  const cur = plan.current_step ?? plan.currentStep;
  if (typeof cur === 'number') {
    if (Number.isInteger(cur) && cur >= 0 && cur < steps.length) return { step: steps[cur], problems: [] };
    return { step: undefined, problems: [`plan.current_step ${cur} is not an index of plan.steps (0–${steps.length - 1})`] };
  }
  if (typeof cur === 'string') {
    const s = steps.find((x) => isRec(x) && str(x.id) === cur);
    return s === undefined ? { step: undefined, problems: [`plan.current_step "${oneLine(cur).slice(0, 80)}" names no step of plan.steps`] } : { step: s, problems: [] };
  }
  return { step: steps.find((x) => !isRec(x) || !(x.done === true || x.status === 'done')), problems: [] };
}

/** Reads the plan and the step's tools from session state. */
export function readPlan(get: (key: string) => unknown, keys: StateKeys = DEFAULT_STATE_KEYS): StepPlan {
  const problems: string[] = [];
  const raw = get(keys.plan);
  let task: string | null = null;
  let stepTools: string[] | null = null;
  if (typeof raw === 'string') task = raw.trim() === '' ? null : raw.trim();
  else if (isRec(raw)) {
    const { step, problems: p } = currentStep(raw);
    problems.push(...p);
    const lines: string[] = [];
    const goal = str(raw.goal) ?? str(raw.task) ?? str(raw.objective);
    if (goal) lines.push(`Goal: ${goal}`);
    const acceptance = [...list(raw.acceptance)];
    const constraints = [...list(raw.constraints)];
    if (isRec(step)) {
      const text = str(step.text) ?? str(step.description) ?? str(step.title) ?? str(step.name);
      const id = str(step.id);
      if (text) lines.push(`Step${id ? ` ${oneLine(id)}` : ''}: ${text}`);
      acceptance.push(...list(step.acceptance));
      constraints.push(...list(step.constraints));
      if (step.tools !== undefined) stepTools = list(step.tools);
    } else if (str(step)) lines.push(`Step: ${str(step)}`);
    if (constraints.length > 0) lines.push('Constraints:', ...constraints.map((c) => `- ${oneLine(c)}`));
    // The checklist form the engine reads as acceptance criteria (render.ts successCriteria).
    if (acceptance.length > 0) lines.push('Acceptance:', ...acceptance.map((a) => `- [ ] ${oneLine(a)}`));
    task = lines.length > 0 ? lines.join('\n') : null;
    if (task === null) problems.push(`state.${keys.plan} has none of goal, step, steps, acceptance`);
  } else if (raw !== undefined && raw !== null) problems.push(`state.${keys.plan} must be a string or an object, got ${Array.isArray(raw) ? 'an array' : typeof raw}`);

  const rawTools = get(keys.tools);
  let tools: string[] | null = stepTools;
  if (Array.isArray(rawTools)) tools = list(rawTools);
  else if (isRec(rawTools) && Array.isArray(rawTools.allowed)) tools = list(rawTools.allowed);
  else if (rawTools !== undefined && rawTools !== null) problems.push(`state.${keys.tools} must be a list of tool names`);
  return { task, tools, problems };
}

/** Artifact references for the TASK layer: names or URIs from state.knowledge.artifacts, plus the session's artifacts. */
export function artifactRefs(get: (key: string) => unknown, keys: StateKeys, sessionArtifacts: string[], scope: string): string[] {
  const k = get(keys.knowledge);
  const named = isRec(k) ? list(k.artifacts) : [];
  const refs = [...named, ...sessionArtifacts.map((a) => `artifact://${scope}/${a}`)];
  return [...new Set(refs.map(oneLine))].sort().slice(0, 50);
}
