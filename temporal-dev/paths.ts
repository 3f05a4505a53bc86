import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** Where the demo and `npm run dev:server` keep the server's state, so runs survive restarts. */
export const devDatabaseFile = join(projectRoot, '.temporal', 'dev.sqlite');
