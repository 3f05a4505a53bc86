// model-local's request side, without a model: what an OpenAI request becomes before
// node-llama-cpp sees it (the chat history, the offered functions and their grammar schemas),
// and what it refuses with a 400.
import { describe, expect, it } from 'vitest';
import { functionsFrom, historyFrom } from '../../model-local/chat-request.js';
import { gbnfSchema } from '../../model-local/grammar-schema.js';
import { BadRequest, parseChatRequest, type FunctionTool } from '../../model-local/wire.js';

const readLedger: FunctionTool = {
  type: 'function',
  function: {
    name: 'read_ledger',
    description: 'Read the ledger.',
    parameters: {
      type: 'object',
      properties: { transferId: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 3 }, note: { type: 'string' } },
      required: ['transferId'],
    },
  },
};
const escalate: FunctionTool = {
  type: 'function',
  function: { name: 'escalate', parameters: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] } },
};

function refusal(body: unknown): string {
  try {
    parseChatRequest(body);
  } catch (err) {
    if (err instanceof BadRequest) return err.message;
    throw err;
  }
  throw new Error('accepted');
}

describe('the request', () => {
  it('refuses what this server does not serve, naming the field', () => {
    expect(refusal({ messages: [] })).toBe('messages: must be a non-empty array');
    expect(refusal({ messages: [{ role: 'user', content: 'x' }], stream: true })).toContain('stream: true is not supported');
    expect(refusal({ messages: [{ role: 'user', content: 'x' }], n: 2 })).toContain('only n = 1');
    expect(refusal({ messages: [{ role: 'narrator', content: 'x' }] })).toBe('messages.0.role: must be system, developer, user, assistant or tool');
    expect(refusal({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] })).toMatch(/^messages\.0\.content/);
    expect(refusal({ messages: [{ role: 'user', content: 'x' }], max_tokens: 0 })).toMatch(/^max_tokens/);
    expect(refusal({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'no spaces' } }] })).toMatch(
      /^tools\.0\.function\.name/,
    );
  });

  it('accepts what OpenAI clients send beside what it reads', () => {
    const request = parseChatRequest({ model: 'x', user: 'u', messages: [{ role: 'user', content: 'hi', name: 'a' }], max_tokens: null, stream: false });
    expect(request.messages).toHaveLength(1);
  });
});

describe('the chat history', () => {
  it('joins each tool result to its call by id and ends with the model turn to generate', () => {
    const { messages } = parseChatRequest({
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'read ' },
            { type: 'text', text: 'it' },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_ledger', arguments: '{"transferId":"PX-1"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"status":"SETTLED"}' },
        { role: 'tool', tool_call_id: 'nobody', content: 'stray' },
      ],
    });
    expect(historyFrom(messages)).toEqual([
      { type: 'system', text: 'sys' },
      { type: 'user', text: 'read it' },
      {
        type: 'model',
        response: [{ type: 'functionCall', name: 'read_ledger', params: { transferId: 'PX-1' }, result: '{"status":"SETTLED"}', startsNewChunk: true }],
      },
      { type: 'user', text: '<tool_response>\nstray\n</tool_response>' },
      { type: 'model', response: [] },
    ]);
  });

  it('continues a trailing assistant text instead of opening a new turn', () => {
    const { messages } = parseChatRequest({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'The answer is' },
      ],
    });
    expect(historyFrom(messages).at(-1)).toEqual({ type: 'model', response: ['The answer is'] });
  });
});

describe('the offered functions', () => {
  it('offers every tool under auto, none under "none", and forces a call under "required" or a named one', () => {
    expect(Object.keys(functionsFrom([readLedger, escalate], 'auto').functions ?? {})).toEqual(['read_ledger', 'escalate']);
    expect(functionsFrom([readLedger, escalate], 'none')).toMatchObject({ functions: undefined, force: false, documented: [] });
    expect(functionsFrom([readLedger, escalate], 'required')).toMatchObject({ force: true });
    const named = functionsFrom([readLedger, escalate], { type: 'function', function: { name: 'escalate' } });
    expect([Object.keys(named.functions ?? {}), named.force, named.documented]).toEqual([['escalate'], true, [escalate]]);
    expect(() => functionsFrom([readLedger], { function: { name: 'shell' } })).toThrow(BadRequest);
  });

  it('keeps the caller schema of every tool for reading the calls back, even those not offered', () => {
    expect(functionsFrom([readLedger], 'none').tools.get('read_ledger')).toBe(readLedger.function);
  });
});

describe('the grammar schema', () => {
  it('makes optional properties nullable, lists every property, and spells out a small integer range', () => {
    expect(gbnfSchema(readLedger.function.parameters)).toEqual({
      type: 'object',
      properties: {
        transferId: { type: 'string' },
        limit: { oneOf: [{ enum: [1, 2, 3] }, { type: 'null' }] },
        note: { oneOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['transferId', 'limit', 'note'],
    });
  });

  it('inlines references, and cuts a recursive schema off instead of recursing forever', () => {
    const root = { $ref: '#/$defs/node', $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } } };
    const schema = gbnfSchema(root);
    expect(schema).toMatchObject({ type: 'object', properties: { next: { type: 'object' } } });
    expect(JSON.stringify(schema)).toContain('"additionalProperties":true'); // the any-JSON cut-off
  });
});
