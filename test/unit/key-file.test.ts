// A key file holds an approver's secret key, and what the CLI says about one reaches terminals,
// CI logs and bug reports. A key file that is not valid JSON (a hand edit, a bad paste) must be
// reported by name only: JSON.parse's message quotes the text around the fault, which there is
// the secret key. And a new key file is written only through the descriptor its exclusive
// create returned, so nothing planted at the name can receive the key. Real files in a
// temporary directory. A key file anyone else on the machine can read lets them approve as its
// owner, so one is refused as ssh refuses such a private key.
import { chmodSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKeyFile, generateKey, readKeyFile } from '../../client/sign.js';

const dir = mkdtempSync(join(tmpdir(), 'key-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = generateKey('erin@ops');
const secret = key.secretKey;

/** The error readKeyFile throws for `text`, its message with the file's path taken out. */
function refusal(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  let message: string | undefined;
  try {
    readKeyFile(path);
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message, 'readKeyFile refused the file').toBeDefined();
  expect(message).toContain(path);
  return (message ?? '').split(path).join('');
}

/** Every four characters of the secret key in a row: any of them in a message is a leak. */
const pieces = Array.from({ length: secret.length - 3 }, (_, i) => secret.slice(i, i + 4));

describe('key files', () => {
  it.each([
    // The parser quotes the text for an unexpected token: these two leaked before, whatever the key.
    ['the secret in single quotes', `{"id": "erin@ops", "secretKey": '${secret}'}`],
    ['a stray letter before the secret', `{"id": "erin@ops", "secretKey": x${secret}}`],
    ['a missing comma just after the secret', `{"id": "erin@ops", "secretKey": "${secret}" "publicKey": "${key.publicKey}"}`],
    ['a file cut off in the secret', `{"id": "erin@ops", "secretKey": "${secret.slice(0, 40)}`],
  ])('a key file that is not valid JSON (%s) is refused by name, quoting none of it', (name, text) => {
    const message = refusal(`${name.replace(/\W+/g, '-')}.json`, text);
    for (const piece of pieces) expect(message).not.toContain(piece);
    expect(message).toMatch(/not valid JSON/);
  });

  it('valid JSON that is not a key file is refused without its content too', () => {
    const message = refusal('wrong-shape.json', JSON.stringify({ id: 'erin@ops', secretKey: `${secret}0`, publicKey: key.publicKey }));
    expect(message).toMatch(/is not a key file/);
    for (const piece of pieces) expect(message).not.toContain(piece);
  });

  it('a key file others can read or change is refused, naming its mode; the same file at 0600 reads', () => {
    const path = join(dir, 'shared.json');
    writeFileSync(path, `${JSON.stringify(key)}\n`, { mode: 0o600 });
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      chmodSync(path, mode);
      expect(() => readKeyFile(path)).toThrow(`key file ${path} can be read or changed by others (mode ${mode.toString(8)})`);
    }
    chmodSync(path, 0o600);
    expect(readKeyFile(path)).toEqual(key);
    chmodSync(path, 0o400);
    expect(readKeyFile(path)).toEqual(key);
  });

  it('createKeyFile writes a key readable back, mode 0600', () => {
    const path = join(dir, 'new.json');
    createKeyFile(path, key);
    expect(readKeyFile(path)).toEqual(key);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('createKeyFile refuses a name already taken, a symlink included, and writes nothing through it', () => {
    const taken = join(dir, 'taken.json');
    writeFileSync(taken, 'someone else\n');
    expect(() => createKeyFile(taken, key)).toThrow(/EEXIST/);
    expect(readFileSync(taken, 'utf8')).toBe('someone else\n');

    const target = join(dir, 'planted-target');
    const link = join(dir, 'planted.json');
    symlinkSync(target, link);
    expect(() => createKeyFile(link, key)).toThrow(/EEXIST/);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(target)).toBe(false);
  });
});
