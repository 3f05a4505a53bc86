// The frame of every console page, and the rule every page keeps. Everything a page shows may have
// been written by an adversary (a tool's output, a log line, a model's proposal, a note), so every
// value goes through hono's html`` template, which escapes each interpolation; no page calls raw().
// The pages carry no inline script or style (the Content-Security-Policy forbids both); the one
// script, static/console.js, signs decisions in the browser and swaps in live fragments.
import { html } from 'hono/html';
import { shownValue } from './visible-text.js';

export type Html = ReturnType<typeof html>;

/** The whole page around a body; `page` tells the script which behaviour to switch on. */
export function layout(title: string, page: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · agent console</title>
        <link rel="stylesheet" href="/static/console.css" />
        <script src="/static/console.js" defer></script>
      </head>
      <body data-page="${page}">
        <header class="top">
          <strong class="brand">agent console</strong>
          <nav><a href="/">Runs</a> <a href="/inbox">Approval inbox</a></nav>
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}

export function errorPage(title: string, message: string): Html {
  return layout(
    title,
    'error',
    html`<h1>${title}</h1>
      <p class="problem" role="alert">${message}</p>
      <p><a href="/">Back to the runs</a></p>`,
  );
}

/**
 * A table's rows of name and value, one per line: a card's display lines and the facts against a
 * call, signed with it, so shown in plain ASCII (visible-text.ts).
 */
export function rowsOf(lines: ReadonlyArray<readonly [string, string]>): Html[] {
  return lines.map(
    ([name, value]) =>
      html`<tr>
        <th>${shownValue(name)}</th>
        <td>${shownValue(value)}</td>
      </tr>`,
  );
}
