// keys generate: makes an approver's Ed25519 key file (private, mode 600) and prints the public
// directory entry the worker's operator adds to AGENT_APPROVERS_FILE. Nothing here talks to
// Temporal: a key is made where it will be used, and only its public half is handed on.
import { Approver } from '../../workflows/trust/directory.js';
import { createKeyFile, directoryEntry, generateKey } from '../sign.js';
import { CliError, UsageError } from '../usage.js';
import type { CommandRun } from './types.js';

export const keys: CommandRun = (ctx, args, flags) => {
  const action = args.action ?? '';
  if (action !== 'generate') throw new UsageError(`keys: unknown action '${action}' (usage: ${ctx.program} keys generate --id ID --out FILE [--roles r1,r2])`);
  const id = flags.str('id')?.trim();
  const out = flags.str('out');
  if (!id) throw new UsageError('keys generate needs --id <directory id>, e.g. --id alice@ops');
  if (!out) throw new UsageError('keys generate needs --out <file> for the private key');
  const roles = (flags.str('roles') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  const key = generateKey(id);
  const entry = directoryEntry(key, roles);
  // Checked before anything is written: an entry the worker would refuse is no use.
  const valid = Approver.safeParse(entry);
  if (!valid.success) throw new UsageError(`keys generate: ${valid.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ')}`);
  try {
    createKeyFile(out, key);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new CliError(`${out} already exists; not overwriting a key file (choose another --out)`);
    throw new CliError(`cannot write ${out}: ${err instanceof Error ? err.message : String(err)}`);
  }
  ctx.out(JSON.stringify(valid.data));
  if (!ctx.json) {
    ctx.out(
      `# private key written to ${out} (mode 600, keep it there); add the line above to the worker's AGENT_APPROVERS_FILE, {"approvers":[...]}${roles.length ? '' : ', with the roles it may approve for'}`,
    );
  }
  return Promise.resolve();
};
