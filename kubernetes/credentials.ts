// What one control plane's API server needs to know who is who, made fresh for each control
// plane in its own folder: a random admin token in a static token file (group system:masters,
// so RBAC lets it do anything), the service-account signing key pair, and, once the API server
// has written its self-signed serving certificate, a kubeconfig for the admin that the
// controller manager, the scheduler, kwok and a person's kubectl all use.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Credentials {
  token: string;
  tokenFile: string;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
}

export const ADMIN_USER = 'control-plane-admin';

export function writeCredentials(dir: string): Credentials {
  const token = randomBytes(32).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  // token,user,uid,"group1,group2"
  writeFileSync(tokenFile, `${token},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, { mode: 0o600 });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const serviceAccountKey = join(dir, 'service-account.key');
  const serviceAccountPublicKey = join(dir, 'service-account.pub');
  writeFileSync(serviceAccountKey, privateKey, { mode: 0o600 });
  writeFileSync(serviceAccountPublicKey, publicKey);
  return { token, tokenFile, serviceAccountKey, serviceAccountPublicKey };
}

/** A kubeconfig with one cluster, one user (the admin token) and one current context. */
export function writeKubeconfig(file: string, access: { server: string; token: string; ca: string }): void {
  const name = 'control-plane';
  const ca = Buffer.from(access.ca).toString('base64');
  const text = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${access.server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    `- name: ${ADMIN_USER}`,
    '  user:',
    `    token: ${access.token}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${ADMIN_USER}`,
    `current-context: ${name}`,
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
}
