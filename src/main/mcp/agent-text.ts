// What the engine says to a person at a terminal, said to an agent: no absolute paths (the project's roots become
// relative, the home folder `~`), and no advice to run a command the agent has no way to run.
import { homedir } from 'node:os';
import { sep } from 'node:path';

/**
 * Advice for the CLI user that an agent cannot follow: the clause that gives it, with its leading separator, or the
 * whole aside when it sits in parentheses (`no packet snapshot with hash … (run `contextpack packets` to list them)`).
 */
const CLI_ADVICE = /\s*\(run `contextpack [^`]*`[^()]*\)|(?:[;,]|\s+[—-])?\s*(?:install a local model and )?run `contextpack [^`]*`(?: to re-embed)?/g;

/** Why semantic search is off, for an agent: what is missing, and that no tool of this server adds it. */
export function semanticOffForAgent(reason: string): string {
  // Where the model was looked for is the user's install, not the agent's business (and no absolute path leaves).
  const what = reason.replace(CLI_ADVICE, '').replace(/ \(also looked in [^)]*\)/g, '').replace(/ at (?:[A-Za-z]:)?[\\/][^\s()]*/g, '').trim();
  return `${what} (vectors come from a local embedding model the user installs; no tool here adds them)`;
}

export interface PathHider {
  (text: string): string;
}

/**
 * Replaces each root's absolute path by its name-relative form and the home folder by `~`. Longest prefixes first, so
 * a root inside the home folder is cited by its name, not as `~/…`.
 */
export function pathHider(roots: () => readonly { path: string; name: string }[], home = homedir()): PathHider {
  return (text) => {
    const prefixes: [string, string][] = roots().map((r) => [r.path, r.name]);
    if (home && home !== sep) prefixes.push([home, '~']);
    prefixes.sort((a, b) => b[0].length - a[0].length);
    let out = text;
    for (const [abs, short] of prefixes) {
      if (abs.length < 2 || !out.includes(abs)) continue;
      // Only a whole path segment: a root /a/proj must not turn /a/project2 into proj + "ect2".
      const escaped = abs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      out = out.replace(new RegExp(`${escaped}(?=$|[\\/\\s'"\`),;:\\]])`, 'g'), short);
    }
    return out;
  };
}

export function withoutCliAdvice(text: string): string {
  return text.replace(CLI_ADVICE, '');
}
