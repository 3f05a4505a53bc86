// Everything temporal-dev says goes to stderr with one prefix, so the demo's and the
// tests' own stdout stay clean (the demo's --json output is machine-read).
export type Log = (message: string) => void;

export const stderrLog: Log = (message) => {
  process.stderr.write(`[temporal-dev] ${message}\n`);
};

export const quietLog: Log = () => {};
