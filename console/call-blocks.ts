// What a run page and an approval card both show about a pending call: the call itself, the
// domain's lines beside it, its precondition, and the evidence it rests on (facts, and quoted
// text marked as untrusted). Escaped as every page is (layout.ts), and the values of the call
// (its arguments, subject and display lines) shown in plain ASCII (visible-text.ts).
import { html } from 'hono/html';
import { duration, isoTime } from '../client/format.js';
import { splitDisplay } from '../client/card-words.js';
import type { RunView } from '../client/run-view.js';
import { rowsOf, type Html } from './layout.js';
import { asciiJson, hasNonAscii, nonAsciiBadge } from './visible-text.js';

export type Awaiting = NonNullable<RunView['awaiting']>;
type Evidence = RunView['evidence']['items'][number];

const pretty = (value: unknown): string => {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
};

function facts(f: Evidence['facts']): Html {
  const entries = Object.entries(f);
  if (!entries.length) return html`<span class="muted">no facts</span>`;
  return html`<table class="facts">
    ${entries.map(
      ([k, v]) =>
        html`<tr>
          <th>${k}</th>
          <td><code>${JSON.stringify(v)}</code></td>
        </tr>`,
    )}
  </table>`;
}

export function evidenceBlock(e: Evidence, now: number): Html {
  const age = now - e.observedAt;
  const freshNow = e.fresh && age <= e.maxAgeMs;
  return html`<div class="evidence" id="ev-${e.id}">
    <div class="ev-head">
      <code>${e.id}</code> <strong>${e.tool}</strong>
      <span class="badge s-${e.status}">${e.status}</span>
      <span class="badge a-${e.authority}">${e.authority}</span>
      <span class="badge ${freshNow ? 'fresh' : 'stale'}">${freshNow ? 'fresh' : e.fresh ? 'stale now' : 'stale when observed'}</span>
    </div>
    <dl class="ev-meta">
      <dt>source</dt>
      <dd>${e.source}</dd>
      ${
        e.subject
          ? html`<dt>subject</dt>
              <dd><code>${e.subject}</code></dd>`
          : ''
      }
      <dt>observed</dt>
      <dd>${isoTime(e.observedAt)} (${duration(age)} ago; effective ${isoTime(e.effectiveAt)}; fresh for ${duration(e.maxAgeMs)})</dd>
      ${
        e.args !== undefined
          ? html`<dt>asked</dt>
              <dd><code>${JSON.stringify(e.args)}</code></dd>`
          : ''
      }
    </dl>
    ${facts(e.facts)} ${e.error ? html`<p class="problem">${e.error.class}: ${e.error.message}</p>` : ''}
    ${e.truncated ? html`<p class="muted">output truncated from ${e.truncated.originalBytes} bytes (kept as ${e.truncated.ref})</p>` : ''}
    ${
      e.quoted.length
        ? html`<div class="untrusted">
            <p class="untrusted-label">
              UNTRUSTED TEXT from the tool's output: quoted data, not instructions${e.textWithheld ? ' (withheld from control state)' : ''}
            </p>
            ${e.quoted.map((q) => html`<pre class="quoted">${q}</pre>`)}
          </div>`
        : e.textWithheld
          ? html`<p class="muted">free text withheld from control state</p>`
          : ''
    }
  </div>`;
}

export function callBlock(a: Pick<Awaiting, 'tool' | 'args' | 'subject'>): Html {
  const args = pretty(a.args);
  const shown = asciiJson(args);
  return html`<pre class="call"><strong>${a.tool}</strong> ${shown}</pre>
    ${shown !== args ? nonAsciiBadge() : ''}`;
}

/**
 * Said once, above the card's lines, when any value of the call has a character outside plain
 * ASCII: such a value may read as another (a look-alike letter, an invisible or direction-changing
 * character), so each is shown escaped and marked, and the approver is told to read the marks.
 */
export function nonAsciiWarning(a: Pick<Awaiting, 'tool' | 'args' | 'subject' | 'display'>): Html {
  if (!hasNonAscii(JSON.stringify([a.tool, a.args ?? null, a.subject ?? null, a.display ?? null]))) return html``;
  return html`<p class="problem non-ascii-warning" role="alert">
    This call contains characters outside plain ASCII. Each is shown as a <code>\\uXXXX</code> escape, in values marked ${nonAsciiBadge()}: letters of
    other alphabets look like Latin ones, and invisible or direction-changing characters change how text reads. Read the marked values before you
    approve.
  </p>`;
}

/**
 * What the domain shows beside the call (amount, beneficiary, ledger state), signed with it. What
 * is read again before the call runs is said only when the tool's contract says it (`reread`,
 * its precondition's re-read); without the contract nothing domain-specific is claimed. The
 * lines marked as arguing against the call are shown apart (card.ts againstBlock), not here.
 */
export function displayBlock(a: Pick<Awaiting, 'display'>, reread?: string): Html {
  const entries = splitDisplay(a.display).lines;
  if (!entries.length) return html``;
  return html`<table class="display" aria-label="what this call does">
      ${rowsOf(entries)}
    </table>
    <p class="muted small">
      From the run's evidence when the request was raised. You sign the call and these lines together (the digest covers
      both).${reread ? html` Before the call runs, the run reads <code>${reread}</code> again and checks the tool's precondition on that answer.` : ''}
    </p>`;
}

export function precondition(p: Awaiting['precondition']): Html {
  if (!p) return html`<span class="muted">not stated</span>`;
  return p.ok ? html`<span class="badge ok">holds</span>` : html`<span class="badge bad">VIOLATED</span> ${p.reason ?? 'no reason given'}`;
}
