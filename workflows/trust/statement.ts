// Signed statements: what an approver, an operator or a starter says, bound to one run and
// signed with their Ed25519 key. Workflow-safe (pure JavaScript from @noble/curves), so the
// Update validator checks a signature inside the sandbox before anything is accepted.
// The directory of keys is worker-side configuration (trust/directory.ts); a statement names
// its signer, and only the directory says which key and which roles that name has.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { z } from 'zod';
import { workerScoped } from '../worker-scoped.js';

const Id = workerScoped('statement.Id', () => z.string().min(1).max(200));
const Hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `${bytes} bytes as lowercase hex`);

export const PublicKeyHex = workerScoped('statement.PublicKeyHex', () => Hex(32));
export const SignatureHex = workerScoped('statement.SignatureHex', () => Hex(64));
const DigestHex = workerScoped('statement.DigestHex', () => Hex(32));

/** The decision on one approval request: binds run, request, the call's digest and an expiry. */
export const DecisionStatement = workerScoped('statement.DecisionStatement', () =>
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('decision'),
    runId: Id,
    requestId: Id,
    digest: DigestHex,
    decision: z.enum(['approve', 'deny']),
    /** The signer's directory id; the directory holds the key it must verify under. */
    by: Id,
    comment: z.string().max(500),
    /** Epoch ms; after this the statement is refused, so a leaked one cannot be used later. */
    expiresAt: z.number().int(),
  }),
);
export type DecisionStatement = z.infer<typeof DecisionStatement>;

/**
 * An approver's amendment of a pending effect: the same tool with other arguments. It binds the
 * request and the digest the approver was shown, and the arguments they want instead. It
 * approves nothing: the amended call is a new request, judged by the gate and decided afresh.
 */
export const AmendStatement = workerScoped('statement.AmendStatement', () =>
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('amend'),
    runId: Id,
    requestId: Id,
    digest: DigestHex,
    /** The arguments the approver wants the call to have instead. */
    args: z.record(z.string(), z.unknown()),
    by: Id,
    comment: z.string().max(500),
    expiresAt: z.number().int(),
  }),
);
export type AmendStatement = z.infer<typeof AmendStatement>;

/** One typed value a person signs: text (an account, a date) or a number (an amount). */
const FieldValue = workerScoped('statement.FieldValue', () => z.union([z.string().min(1).max(200), z.number()]));
/** The typed values of a signed note, by kind: one value or several of each. */
export type NoteFields = Record<string, string | number | (string | number)[]>;

/** An operator's note; signed notes are trusted operator text, unsigned ones are not. */
export const NoteStatement = workerScoped('statement.NoteStatement', () =>
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('note'),
    runId: Id,
    text: z.string().min(1).max(2_000),
    /**
     * Typed values the signer states, by kind (`{ payee: 'US12…', amount: 50, date: ['2025-01-11',
     * '2025-01-15'] }`): each vouches for an argument of its kind. The text vouches for no kinded
     * value: mentioning an account is not asking to pay it ("do not pay US12…" mentions it too).
     */
    fields: z
      .record(z.string().regex(/^[a-z][a-z0-9_-]{0,39}$/), z.union([FieldValue, z.array(FieldValue).min(1).max(20)]))
      .refine((f) => Object.keys(f).length <= 20, 'at most 20 kinds')
      .optional(),
    by: Id,
    expiresAt: z.number().int(),
    /** The run it is for, as runBinding gives it: required of a signed request (RunInput.request); a note sent later names it too when AgentClient signs it. */
    bound: DigestHex.optional(),
  }),
);
export type NoteStatement = z.infer<typeof NoteStatement>;

/** Who started a run: lets a contract demand an approver other than the starter. */
export const StartStatement = workerScoped('statement.StartStatement', () =>
  z.strictObject({
    v: z.literal(1),
    kind: z.literal('start'),
    runId: Id,
    by: Id,
    expiresAt: z.number().int(),
    /** The run it starts, as runBinding gives it: a start names its signer only at that run. */
    bound: DigestHex.optional(),
  }),
);
export type StartStatement = z.infer<typeof StartStatement>;

export const Statement = workerScoped('statement.Statement', () =>
  z.discriminatedUnion('kind', [DecisionStatement, NoteStatement, StartStatement, AmendStatement]),
);
export type Statement = z.infer<typeof Statement>;

export const Signed = <S extends z.ZodType>(statement: S) => z.strictObject({ statement, signature: SignatureHex });
export const SignedDecision = workerScoped('statement.SignedDecision', () => Signed(DecisionStatement));
export type SignedDecision = z.infer<typeof SignedDecision>;
export const SignedNote = workerScoped('statement.SignedNote', () => Signed(NoteStatement));
export type SignedNote = z.infer<typeof SignedNote>;
export const SignedStart = workerScoped('statement.SignedStart', () => Signed(StartStatement));
export type SignedStart = z.infer<typeof SignedStart>;
export const SignedAmend = workerScoped('statement.SignedAmend', () => Signed(AmendStatement));
export type SignedAmend = z.infer<typeof SignedAmend>;

/** A statement is valid for at most this long after it is made; the signer picks less. */
export const MAX_STATEMENT_LIFETIME_MS = 24 * 3_600_000;

/** The exact bytes that are signed: canonical JSON (sorted keys), UTF-8. */
export function statementBytes(statement: Statement): Uint8Array {
  return utf8(canonical(statement));
}

export function signStatement<S extends Statement>(statement: S, secretKeyHex: string): { statement: S; signature: string } {
  return { statement, signature: toHex(ed25519.sign(statementBytes(statement), fromHex(secretKeyHex))) };
}

/** True only for a well-formed signature by this key over exactly this statement. */
export function verifyStatement(signed: { statement: Statement; signature: string }, publicKeyHex: string): boolean {
  if (!SignatureHex.safeParse(signed.signature).success || !PublicKeyHex.safeParse(publicKeyHex).success) return false;
  try {
    // zip215: false is the strict (RFC 8032) rule: no malleable or small-order encodings.
    return ed25519.verify(fromHex(signed.signature), statementBytes(signed.statement), fromHex(publicKeyHex), { zip215: false });
  } catch {
    return false;
  }
}

export function publicKeyOf(secretKeyHex: string): string {
  return toHex(ed25519.getPublicKey(fromHex(secretKeyHex)));
}

/** A binding fingerprint of anything JSON-shaped: SHA-256 over canonical JSON. */
export function digestOf(value: unknown): string {
  return toHex(sha256(utf8(canonical(value))));
}

export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// Plain conversions: the workflow sandbox need not offer TextEncoder or Buffer.
function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export function fromHex(hex: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/.test(hex)) throw new Error('not lowercase hex');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
