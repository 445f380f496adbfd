import type { Command } from '../command.ts';
import { decisionCommand } from './decision.ts';
import { hierarchyCommand } from './hierarchy.ts';
import { memoryCommand } from './memory.ts';
import { embedCommand } from './embed.ts';
import { ingestCommand } from './ingest.ts';
import { searchCommand } from './search.ts';
import { serveCommand } from './serve.ts';
import { statsCommand } from './stats.ts';
import { packCommand } from './pack.ts';
import { replayCommand } from './replay.ts';
import { packetsCommand } from './packets.ts';
import { redactCommand } from './redact.ts';
import { projectsCommand } from './projects.ts';
import { settingsCommand } from './settings.ts';
import { mcpCommand } from './mcp.ts';

/** Every CLI command; a capability adds its commands here. */
export const commands: Command[] = [ingestCommand, searchCommand, statsCommand, embedCommand, serveCommand, decisionCommand, memoryCommand, hierarchyCommand, packCommand, replayCommand, packetsCommand, redactCommand, projectsCommand, settingsCommand, mcpCommand];
