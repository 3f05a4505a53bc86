// Temporal writes a failure's message and stack trace into the history in clear, even when every
// payload is sealed. This converter moves them into a payload of the failure (its "encoded
// attributes"), which the payload codec then seals like any other; what stays in clear is the
// text "Encoded failure". Every process decodes such a failure whatever converter it uses, so
// workers and clients with and without it read each other's runs.
//
// It seals what the worker's own process raises: an activity's failure (a model provider's error,
// a domain's own message, your activities' errors), and a workflow task's that failed before the
// workflow code ran (`agent status` opens those with the key: client/sealed-failure.ts). Inside
// the workflow sandbox (Temporal's bundler builds this file into the workflow code too) it is
// Temporal's default converter: there the failures are the engine's own words, written to carry
// no case data, and among them are the refusals of queries and Updates, which a client must be
// able to read, key or no key (Temporal passes a query's refusal on as its message alone). One
// kind stays in clear outside it as well: the worker's word that a payload could not be opened,
// written for whoever lacks that key.
//
// CommonJS, and plain JavaScript, because Temporal's SDK takes a failure converter by path: the
// worker and the client require() it. worker/sealed-failures.ts says when it is used.
'use strict';
const { DefaultFailureConverter } = require('@temporalio/common');

/**
 * Errors whose messages are written to be read without the key, known by the mark each of the
 * engine's errors carries (workflows/agent-error.ts), the same in every copy of the engine: a
 * name alone could be any activity's.
 */
const WRITTEN_FOR_THE_KEYLESS = ['UnknownPayloadKeyError', 'PayloadDecryptError'].map((name) => Symbol.for(`bounded-react-temporal.error.${name}`));

class SealedFailureConverter extends DefaultFailureConverter {
  constructor() {
    super({ encodeCommonAttributes: true });
    this.inClear = new DefaultFailureConverter();
  }

  errorToFailure(err, payloadConverter) {
    const keyless = err instanceof Error && WRITTEN_FOR_THE_KEYLESS.some((mark) => err[mark] === true);
    return keyless ? this.inClear.errorToFailure(err, payloadConverter) : super.errorToFailure(err, payloadConverter);
  }
}

/** The workflow bundle defines Temporal's workflow API on its global before it loads a converter; a Node process does not. */
const inWorkflowSandbox = typeof globalThis.__TEMPORAL__ === 'object' && globalThis.__TEMPORAL__ !== null;

exports.failureConverter = inWorkflowSandbox ? new DefaultFailureConverter() : new SealedFailureConverter();
