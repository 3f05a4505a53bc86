// The console's only script (served as /static/console.js; the CSP allows no other). It exists
// for two things a server-rendered page cannot do alone: sign an approver's decision in the
// browser, with their Ed25519 key through WebCrypto, so the console server never sees a private
// key; and keep a page live by swapping in fragments the server rendered (and escaped) when the
// run moves. Run data is never passed to innerHTML: fragments are parsed with DOMParser (whose
// documents run no script) and everything this script writes itself goes in as textContent.
/* global document, window, crypto, TextEncoder, EventSource, DOMParser, fetch, console */
'use strict';

(() => {
  // --- the bytes the engine verifies: canonical JSON (sorted keys, UTF-8), as in
  // workflows/trust/statement.ts canonical(): same sort (UTF-16 code units), undefined dropped.
  function canonical(value) {
    if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
    if (value && typeof value === 'object') {
      const entries = Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
    }
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }

  const utf8 = (text) => new TextEncoder().encode(text);
  const toHex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
  function fromHex(hex) {
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    return out;
  }
  function base64url(bytes) {
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    return window.btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  const sha256Hex = async (text) => toHex(await crypto.subtle.digest('SHA-256', utf8(text)));

  // --- the approver's key: kept in this page's memory as a non-extractable CryptoKey ---------
  let signer = null; // { id, publicKey, key }

  function say(el, text, kind) {
    if (!el) return;
    el.textContent = text;
    el.className = `${el.className.replace(/\b(ok|problem)-text\b/g, '').trim()} ${kind ? `${kind}-text` : ''}`.trim();
  }

  async function loadKey(text) {
    let file;
    try {
      file = JSON.parse(text);
    } catch {
      throw new Error('that is not a key file (it is not JSON)');
    }
    const hex64 = /^[0-9a-f]{64}$/;
    if (!file || typeof file.id !== 'string' || !file.id || !hex64.test(file.secretKey) || !hex64.test(file.publicKey)) {
      throw new Error('that is not a key file: it needs id, secretKey and publicKey (32 bytes as hex each), as `agent keys generate` writes');
    }
    const jwk = { kty: 'OKP', crv: 'Ed25519', d: base64url(fromHex(file.secretKey)), x: base64url(fromHex(file.publicKey)) };
    let key;
    try {
      key = await crypto.subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['sign']);
    } catch (err) {
      throw new Error(`this browser could not import the key (WebCrypto Ed25519): ${err && err.message ? err.message : err}`);
    }
    // The public key must belong to the secret one, as the CLI's readKeyFile insists.
    const probe = utf8('agent console key check');
    const verifier = await crypto.subtle.importKey('raw', fromHex(file.publicKey), { name: 'Ed25519' }, false, ['verify']);
    if (!(await crypto.subtle.verify({ name: 'Ed25519' }, verifier, await crypto.subtle.sign({ name: 'Ed25519' }, key, probe), probe))) {
      throw new Error('its public key does not belong to its secret key');
    }
    return { id: file.id, publicKey: file.publicKey, key };
  }

  function setupKeyPanel() {
    const status = document.getElementById('key-status');
    const fileInput = document.getElementById('key-file');
    const textArea = document.getElementById('key-text');
    const use = async (text, from) => {
      try {
        signer = await loadKey(text);
        say(status, `Signing as ${signer.id} (public key ${signer.publicKey.slice(0, 16)}…, from ${from}). The key stays in this page.`, 'ok');
      } catch (err) {
        signer = null;
        say(status, `Key not loaded: ${err.message}`, 'problem');
      }
    };
    fileInput.addEventListener('change', async () => {
      const file = fileInput.files && fileInput.files[0];
      if (!file) return;
      const text = await file.text();
      fileInput.value = '';
      await use(text, file.name);
    });
    document.getElementById('key-load').addEventListener('click', async () => {
      const text = textArea.value;
      textArea.value = '';
      await use(text, 'the pasted text');
    });
    document.getElementById('key-forget').addEventListener('click', () => {
      signer = null;
      say(status, 'No key loaded: load yours to approve or deny.');
    });
  }

  // --- deciding: sign the statement here, send {statement, signature} to the console --------
  function logDecision(text, kind) {
    const log = document.getElementById('decision-log');
    if (!log) return;
    const li = document.createElement('li');
    say(li, `${new Date().toISOString().slice(11, 19)} ${text}`, kind);
    log.prepend(li);
  }

  async function decide(article, decision, form) {
    const outcome = form.querySelector('.outcome');
    const runId = article.dataset.runId;
    const requestId = article.dataset.requestId;
    const digest = article.dataset.digest;
    const report = (text, kind) => {
      say(outcome, text, kind);
      logDecision(`${decision} ${runId} (request ${requestId}): ${text}`, kind);
    };
    if (!signer) return report('load your key file first (above): decisions are signed in this browser', 'problem');
    // What you see is what you sign: the digest signed is computed here from the run, request,
    // call, chain and the lines shown beside the call (workflows/controller/approvals.ts
    // approvalDigest), never taken from the run. A run that reports another digest for what it
    // shows (a look-alike answering a real request with lines of its choosing) gets nothing.
    const call = JSON.parse(article.dataset.call);
    // data-call is rendered from the same values as the card's lines and call (console/views.ts).
    const shown = { runId, requestId, tool: call.tool, args: call.args, chain: call.chain || undefined, display: call.display || undefined };
    // A call without a subject is raised with subject '' and digested with null: either means "none shown".
    const subjects = call.subject ? [call.subject] : [null, ''];
    let expected = null;
    for (const subject of subjects) {
      const candidate = await sha256Hex(canonical({ ...shown, subject }));
      if (candidate === digest) expected = candidate;
    }
    if (expected === null) {
      return report(
        'not signed: the digest does not match the call shown on this page (the card does not match the digest the run reports; do not approve)',
        'problem',
      );
    }
    const validFor = Number(form.elements.validFor.value) || 600000;
    const statement = {
      v: 1,
      kind: 'decision',
      runId,
      requestId,
      digest: expected,
      decision,
      by: signer.id,
      comment: form.elements.comment.value,
      expiresAt: Date.now() + validFor,
    };
    const signature = toHex(await crypto.subtle.sign({ name: 'Ed25519' }, signer.key, utf8(canonical(statement))));
    say(outcome, `sending the ${decision} signed by ${signer.id}…`);
    let answer;
    try {
      const response = await fetch('/api/decisions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ statement, signature }),
      });
      answer = await response.json();
    } catch (err) {
      return report(`the console did not answer: ${err.message}`, 'problem');
    }
    if (answer.ok) report(`${answer.decision} by ${answer.by}: ${answer.outcome}`, 'ok');
    else report(answer.error, 'problem');
  }

  // --- a button that just moved: a live update can put another card under a pointer on its way
  // to a click (a new request above pushes the rest down, a decided one leaves and pulls them up),
  // so for a moment after a decision button appears or moves it is marked `data-settling` (dimmed
  // by the stylesheet) and a click on it is not taken as a decision.
  const SETTLE_MS = 1000;
  const decisionButtons = (region) => Array.from(region.querySelectorAll('form.decide button[data-decision]'));
  /** The same decision on the same request and digest is the same button, whichever element shows it. */
  function buttonId(button) {
    const article = button.closest('article.request');
    return article ? [article.dataset.runId, article.dataset.requestId, article.dataset.digest, button.dataset.decision].join('|') : '';
  }
  function placeOf(button) {
    const box = button.getBoundingClientRect();
    return `${Math.round(box.left)},${Math.round(box.top)}`;
  }
  let settles = 0;
  /** Runs `change`, then marks every decision button in the region that is new or not where it was. */
  function markMoved(region, change) {
    const before = new Map(decisionButtons(region).map((b) => [buttonId(b), placeOf(b)]));
    change();
    for (const b of decisionButtons(region)) {
      if (before.get(buttonId(b)) === placeOf(b)) continue;
      // Each mark ends its own moment: a button that moves again stays marked for a full one.
      const mark = String(++settles);
      b.dataset.settling = mark;
      window.setTimeout(() => {
        if (b.dataset.settling === mark) delete b.dataset.settling;
      }, SETTLE_MS);
    }
  }

  function setupDecisions() {
    // Buttons, not a submit: pressing Enter in the comment must not approve anything.
    document.addEventListener('submit', (event) => {
      if (event.target instanceof window.HTMLFormElement && event.target.classList.contains('decide')) event.preventDefault();
    });
    document.addEventListener('click', (event) => {
      const button = event.target instanceof window.Element ? event.target.closest('form.decide button[data-decision]') : null;
      if (!button) return;
      const form = button.form;
      if (button.dataset.settling) {
        say(
          form.querySelector('.outcome'),
          'not taken: this card moved or changed just before your click (the list was updated). Check it and click again.',
          'problem',
        );
        return;
      }
      const article = form.closest('article.request');
      const decision = button.dataset.decision === 'deny' ? 'deny' : 'approve';
      const buttons = form.querySelectorAll('button');
      buttons.forEach((b) => (b.disabled = true));
      decide(article, decision, form)
        .catch((err) => say(form.querySelector('.outcome'), `not sent: ${err.message}`, 'problem'))
        .finally(() => buttons.forEach((b) => (b.disabled = false)));
    });
  }

  // --- live pages: server-sent events carry fragments the server rendered and escaped --------
  const parse = (fragment) => new DOMParser().parseFromString(`<body>${fragment}</body>`, 'text/html').body;

  /** Replaces the whole region (a run's page: nothing in it is typed into). */
  function replaceAll(region, fragment) {
    region.replaceChildren(...Array.from(parse(fragment).childNodes, (n) => document.importNode(n, true)));
  }

  /**
   * Keeps items whose data-key is unchanged (and what was typed in them); swaps in the rest. A
   * decision button this moved or brought in ignores clicks for a moment (markMoved).
   */
  function reconcile(region, fragment) {
    const current = new Map(Array.from(region.children, (el) => [el.dataset.key, el]));
    const next = Array.from(parse(fragment).children, (el) => current.get(el.dataset.key) || document.importNode(el, true));
    markMoved(region, () => region.replaceChildren(...next));
  }

  function setupLive(regionId, apply) {
    const region = document.getElementById(regionId);
    const status = document.getElementById('live-status');
    if (!region || !region.dataset.live) return;
    const source = new EventSource(region.dataset.live);
    source.addEventListener('update', (event) => {
      apply(region, event.data);
      say(status, `Live: updated ${new Date().toISOString().slice(11, 19)}.`);
    });
    source.addEventListener('problem', (event) => say(status, `Live updates: ${event.data}`, 'problem'));
    source.addEventListener('end', () => {
      source.close();
      say(status, 'The run has ended.');
    });
    source.addEventListener('error', () => {
      if (source.readyState !== EventSource.CLOSED) say(status, 'Live updates: reconnecting…', 'problem');
    });
    window.addEventListener('pagehide', () => source.close());
  }

  const page = document.body.dataset.page;
  if (page === 'inbox') {
    setupKeyPanel();
    setupDecisions();
    setupLive('inbox-live', reconcile);
  } else if (page === 'run') {
    setupLive('live', replaceAll);
  }
  if (!crypto.subtle) console.warn('WebCrypto is not available here (the console must be opened over http://127.0.0.1 or https)');
})();
