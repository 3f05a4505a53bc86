// The one reader of tool calls written as text (activities/model/text-calls.ts), which both the
// engine's adapters and model-local's server use: every form either side accepted, and every
// form that must stay text.
import { describe, expect, it } from 'vitest';
import { callsFromText, textCalls } from '../../activities/model/text-calls.js';

const declared = new Set(['read_ledger', 'read_bank', 'finish', 'escalate']);
const ledger = (transferId: string) => ({ name: 'read_ledger', args: { transferId } });

describe('calls written as text', () => {
  it.each([
    ['bare JSON', '{"name":"read_ledger","arguments":{"transferId":"PX-1"}}'],
    ['a fenced block', 'Checking.\n```json\n{"name": "read_ledger", "arguments": {"transferId": "PX-1"}}\n```'],
    ['a fence without a language', '```\n{"name": "read_ledger", "arguments": {"transferId": "PX-1"}}\n```'],
    ['<tool_call> tags with string arguments', '<tool_call>\n{"name": "read_ledger", "arguments": "{\\"transferId\\": \\"PX-1\\"}"}\n</tool_call>'],
    ['an OpenAI-shaped function object', '{"type":"function","function":{"name":"read_ledger","arguments":{"transferId":"PX-1"}}}'],
    ['"parameters" for arguments', '{"name":"read_ledger","parameters":{"transferId":"PX-1"}}'],
    ['"tool" and "args"', '{"tool":"read_ledger","args":{"transferId":"PX-1"}}'],
  ])('reads %s', (_kind, text) => {
    expect(callsFromText(text, declared)).toEqual([ledger('PX-1')]);
  });

  it('reads a call without arguments, and "" as no arguments', () => {
    expect(callsFromText('{"name":"read_bank"}', declared)).toEqual([{ name: 'read_bank', args: {} }]);
    expect(callsFromText('{"name":"read_bank","arguments":""}', declared)).toEqual([{ name: 'read_bank', args: {} }]);
  });

  it('reads several calls: tagged blocks, an array, or one object per line', () => {
    const two = [ledger('PX-1'), ledger('PX-2')];
    const a = '{"name":"read_ledger","arguments":{"transferId":"PX-1"}}';
    const b = '{"name":"read_ledger","arguments":{"transferId":"PX-2"}}';
    expect(callsFromText(`<tool_call>${a}</tool_call>\n<tool_call>${b}</tool_call>`, declared)).toEqual(two);
    expect(callsFromText(`[${a}, ${b}]`, declared)).toEqual(two);
    expect(callsFromText(`${a}\n${b}\n`, declared)).toEqual(two);
    expect(callsFromText(`<tool_call>\n${a}\n${b}\n</tool_call>`, declared)).toEqual(two);
  });

  it('keeps the prose around tagged or fenced calls as the rest, and none for a whole-text call', () => {
    expect(textCalls('I will read the ledger.\n<tool_call>{"name":"read_ledger","arguments":{"transferId":"PX-1"}}</tool_call>', declared)).toEqual({
      calls: [ledger('PX-1')],
      rest: 'I will read the ledger.',
    });
    expect(textCalls('{"name":"read_ledger","arguments":{"transferId":"PX-1"}}', declared)).toEqual({ calls: [ledger('PX-1')], rest: '' });
  });

  it.each([
    ['an undeclared function', '{"name":"transfer_money","arguments":{"to":"x"}}'],
    ['arguments that are not an object', '{"name":"read_ledger","arguments":[1,2]}'],
    ['arguments that are a string but not JSON', '{"name":"read_ledger","arguments":"PX-1"}'],
    ['malformed JSON', '```json\n{"name": "read_ledger", "arguments": {\n```'],
    ['prose', 'The ledger says SETTLED, so I am done.'],
    ['an empty reply', ''],
    ['an empty array', '[]'],
    ['one good call and one undeclared', '[{"name":"read_ledger","arguments":{}},{"name":"shell","arguments":{}}]'],
    ['a good line beside an undeclared one', '{"name":"read_ledger","arguments":{}}\n{"name":"shell","arguments":{}}'],
    [
      'a good tagged block beside an undeclared one',
      '<tool_call>{"name":"read_ledger","arguments":{}}</tool_call><tool_call>{"name":"shell","arguments":{}}</tool_call>',
    ],
    ['a good fence beside one that is no call', '```json\n{"name":"read_ledger","arguments":{}}\n```\n```json\n{"status":"SETTLED"}\n```'],
    ['a call object without a name', '{"arguments":{"transferId":"PX-1"}}'],
  ])('leaves %s as text', (_kind, text) => {
    expect(textCalls(text, declared)).toBeUndefined();
    expect(callsFromText(text, declared)).toBeUndefined();
  });

  it('counts only the names it is given', () => {
    expect(callsFromText('{"name":"read_ledger","arguments":{}}', new Set(['read_bank']))).toBeUndefined();
  });
});
