// The signing side of approvals, notes and starts: key files, and statements made from what
// the run showed. The private key never leaves the machine that signs; only the statement and
// its signature travel to the run.
import { chmodSync, closeSync, fchmodSync, openSync, writeFileSync } from 'node:fs';
import { ed25519 } from '@noble/curves/ed25519.js';
import { z } from 'zod';
import { exposedMode, readTrustedFile } from '../worker/trusted-file.js';
import { approvalDigest } from '../workflows/controller/index.js';
import type { RunView } from '../workflows/messages.js';
import {
  publicKeyOf,
  signStatement,
  toHex,
  type SignedDecision,
  type SignedNote,
  type SignedStart,
  type SignedAmend,
  type NoteFields,
} from '../workflows/trust/statement.js';

/** An approver's key file: the directory id, the Ed25519 secret key and its public key (hex). Keep it private (mode 0600). */
export const KeyFile = z.strictObject({
  id: z.string().min(1).max(200),
  secretKey: z.string().regex(/^[0-9a-f]{64}$/),
  publicKey: z.string().regex(/^[0-9a-f]{64}$/),
});
export type KeyFile = z.infer<typeof KeyFile>;

/** How long a signed statement stays valid unless the signer says otherwise. */
export const DEFAULT_VALID_FOR_MS = 10 * 60_000;

/** A new Ed25519 key for the directory id `id` (`you@team`). */
export function generateKey(id: string): KeyFile {
  const secretKey = toHex(ed25519.utils.randomSecretKey());
  return { id, secretKey, publicKey: publicKeyOf(secretKey) };
}

/** Writes a key file readable by its owner only. */
export function writeKeyFile(path: string, key: KeyFile): void {
  writeFileSync(path, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/**
 * Reads and checks a key file: an Error naming the file and what is wrong with it (unreadable,
 * readable by others than its owner, not a key file, a public key that is not its secret key's).
 */
export function readKeyFile(path: string): KeyFile {
  let text: string;
  let mode: number;
  try {
    ({ text, mode } = readTrustedFile(path));
  } catch (err) {
    throw new Error(`cannot read key file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // As ssh does with a private key: whoever else can read it can approve as its owner, so a key
  // file others can read is refused, not used.
  const exposed = exposedMode(mode, 0o077);
  if (exposed)
    throw new Error(`key file ${path} can be read or changed by others (mode ${exposed}): a secret key must be its owner's alone; chmod 600 ${path}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text around the fault, which in a key file can be
    // part of the secret key, and this error reaches terminals and logs.
    throw new Error(`${path} is not a key file: it is not valid JSON (the CLI's keys generate command makes one)`);
  }
  const key = KeyFile.safeParse(raw);
  if (!key.success) throw new Error(`${path} is not a key file (the CLI's keys generate command makes one)`);
  if (publicKeyOf(key.data.secretKey) !== key.data.publicKey) throw new Error(`${path}: its public key does not belong to its secret key`);
  return key.data;
}

/** The directory entry for a key: what the worker's AGENT_APPROVERS_FILE lists. */
export function directoryEntry(key: KeyFile, roles: string[]) {
  return { id: key.id, publicKey: key.publicKey, roles };
}

/** A decision on the request the run is waiting on, bound to the digest it showed. */
export function signDecision(
  key: KeyFile,
  runId: string,
  awaiting: Pick<NonNullable<RunView['awaiting']>, 'requestId' | 'digest'>,
  decision: 'approve' | 'deny',
  comment = '',
  options: { validForMs?: number; now?: number } = {},
): SignedDecision {
  const now = options.now ?? Date.now();
  return signStatement(
    {
      v: 1,
      kind: 'decision',
      runId,
      requestId: awaiting.requestId,
      digest: awaiting.digest,
      decision,
      by: key.id,
      comment,
      expiresAt: now + (options.validForMs ?? DEFAULT_VALID_FOR_MS),
    },
    key.secretKey,
  );
}

/**
 * What an approver is shown of a request: the run it names, the request, the exact call, the
 * chain (the first execution's run id) and the lines beside the call, with the digest the run
 * reports for them. A decision is signed over the digest of these values, never over the
 * reported one taken on trust.
 */
export interface ShownRequest {
  runId: string;
  requestId: string;
  tool: string;
  args: unknown;
  subject?: string | undefined;
  /** Absent only for a run recorded before digests covered the chain. */
  chain?: string | undefined;
  display?: Record<string, string> | undefined;
  /** The digest the answering run reports. */
  digest: string;
}

/** Why signing from a card is refused when the card's values do not give the digest its run reports. */
export const CARD_DIGEST_MISMATCH = 'the card does not match the digest the run reports; do not approve';

/**
 * The digest of what is shown (workflows/controller/approvals.ts approvalDigest), or an error
 * when the run reports another one. A run raises `subject: ''` for a call without one, whose
 * digest covers `null`: an empty subject is tried both ways (both mean "no subject shown").
 */
export function shownDigest(shown: ShownRequest): { ok: true; digest: string } | { ok: false; error: string } {
  const subjects = shown.subject ? [shown.subject] : [undefined, ''];
  for (const subject of subjects) {
    const digest = approvalDigest(
      shown.runId,
      shown.requestId,
      { tool: shown.tool, args: shown.args, ...(subject !== undefined ? { subject } : {}) },
      shown.chain || undefined,
      shown.display,
    );
    if (digest === shown.digest) return { ok: true, digest };
  }
  return { ok: false, error: `${CARD_DIGEST_MISMATCH} (request ${shown.requestId} of run ${shown.runId})` };
}

/**
 * A decision on the request as it is shown: signed over the digest computed from the shown
 * values, so the signature counts only at a run whose own request has exactly these values. A
 * card whose values do not give the digest its run reports (a look-alike run answering a copy
 * of a real request with lines of its choosing) is refused, not signed.
 */
export function signShownDecision(
  key: KeyFile,
  shown: ShownRequest,
  decision: 'approve' | 'deny',
  comment = '',
  options: { validForMs?: number; now?: number } = {},
): { ok: true; signed: SignedDecision } | { ok: false; error: string } {
  const checked = shownDigest(shown);
  if (!checked.ok) return checked;
  return { ok: true, signed: signDecision(key, shown.runId, { requestId: shown.requestId, digest: checked.digest }, decision, comment, options) };
}

/**
 * A signed note for `runId`. As a run's request (RunInput.request) it must also name the run it
 * asks, `bound: runBinding(namespace, run)`. A note sent to a running run should too
 * (AgentClient.note computes it from the run's input): without it, it names only the workflow id,
 * and vouches in a run of that id in any namespace that trusts the key, once in each.
 */
export function signNote(
  key: KeyFile,
  runId: string,
  text: string,
  options: { validForMs?: number; now?: number; fields?: NoteFields; bound?: string } = {},
): SignedNote {
  const now = options.now ?? Date.now();
  const fields = options.fields && Object.keys(options.fields).length > 0 ? { fields: options.fields } : {};
  return signStatement(
    {
      v: 1,
      kind: 'note',
      runId,
      text,
      ...fields,
      by: key.id,
      expiresAt: now + (options.validForMs ?? DEFAULT_VALID_FOR_MS),
      ...(options.bound ? { bound: options.bound } : {}),
    },
    key.secretKey,
  );
}

/** An amendment of the request the run shows: the same tool with `args` instead, signed over its request and digest. */
export function signAmend(
  key: KeyFile,
  runId: string,
  awaiting: Pick<NonNullable<RunView['awaiting']>, 'requestId' | 'digest'>,
  args: Record<string, unknown>,
  comment = '',
  options: { validForMs?: number; now?: number } = {},
): SignedAmend {
  const now = options.now ?? Date.now();
  return signStatement(
    {
      v: 1,
      kind: 'amend',
      runId,
      requestId: awaiting.requestId,
      digest: awaiting.digest,
      args,
      by: key.id,
      comment,
      expiresAt: now + (options.validForMs ?? DEFAULT_VALID_FOR_MS),
    },
    key.secretKey,
  );
}

/**
 * A signed start statement for `runId` (RunInput.start): the run then knows, verifiably, who
 * started it, if `bound` is runBinding(namespace, run) for the run it is sent with.
 */
export function signStart(key: KeyFile, runId: string, options: { bound: string; validForMs?: number; now?: number }): SignedStart {
  const now = options.now ?? Date.now();
  return signStatement(
    {
      v: 1,
      kind: 'start',
      runId,
      by: key.id,
      expiresAt: now + (options.validForMs ?? DEFAULT_VALID_FOR_MS),
      bound: options.bound,
    },
    key.secretKey,
  );
}

/**
 * Writes a new key file (mode 600) and refuses to replace one that exists: overwriting a key
 * file would silently orphan the directory entry made from it.
 */
export function createKeyFile(path: string, key: KeyFile): void {
  // Exclusive create (EEXIST if the name is taken, a symlink included), and the key written
  // through that same descriptor: writing by path afterwards would follow whatever was planted
  // at the name in between. The fchmod is writeKeyFile's chmod, on the descriptor: the umask
  // may have taken bits from the 0600 asked for at create.
  const fd = openSync(path, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeFileSync(fd, `${JSON.stringify(key, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
}
