import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PacketRequestError, SnapshotNotFoundError, SnapshotTamperedError } from '../../core/packet/index.ts';
import { CliError } from '../command.ts';

/** Writes through a temporary file and a rename, so a failed write never leaves half a packet. */
export function writeAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/** Maps the packet engine's user errors to CLI errors with their exit codes. */
export function asCliError(err: unknown): unknown {
  if (err instanceof PacketRequestError) return new CliError(err.message.replace(/^(\w+)/, (f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`));
  if (err instanceof SnapshotNotFoundError) return new CliError(err.message);
  if (err instanceof SnapshotTamperedError) return new CliError(err.message, 3);
  return err;
}
