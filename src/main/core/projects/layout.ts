// Where a project's files live; plain path logic with no dependencies, so the CLI can resolve --project cheaply.
import { join } from 'node:path';

export const DEFAULT_PROJECT = 'default';
export const DB_FILE = 'contextpack.db';
const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const isProjectName = (name: string): boolean => PROJECT_NAME.test(name);

/** A project name is a plain folder name: letters, digits, `.`, `_`, `-`, at most 64, not starting with a dot. */
export function checkProjectName(name: string): string {
  if (!PROJECT_NAME.test(name)) throw new Error(`project name ${JSON.stringify(name)} is not valid: use letters, digits, ".", "_" or "-" (at most 64, starting with a letter or digit)`);
  return name;
}

export function projectDir(home: string, name: string): string {
  checkProjectName(name);
  return name === DEFAULT_PROJECT ? home : join(home, 'projects', name);
}

export function projectDbFile(home: string, name: string): string {
  return join(projectDir(home, name), DB_FILE);
}

