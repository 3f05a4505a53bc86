// Temporal writes a failure's message and stack trace into the history in clear, even when every
// payload is sealed. This converter moves them into a payload of the failure (its "encoded
// attributes"), which the payload codec then seals like any other; what stays in clear is the
// text "Encoded failure". Every process decodes such a failure whatever converter it uses, so
// workers and clients with and without it read each other's runs.
//
// It seals what the worker's activities and the clients raise: a model provider's error, a
// domain's own message, your activities' errors. Inside the workflow sandbox (Temporal's bundler
// builds this file into the workflow code too) it is Temporal's default converter: there the
// failures are the engine's own words, written to carry no case data, and among them are the
// refusals of queries and Updates, which a client must be able to read (Temporal passes a query's
// refusal on as its message alone), key or no key. One kind stays in clear outside it as well:
// the worker's word that a payload could not be opened, written for whoever lacks that key.
//
// CommonJS, and plain JavaScript, because Temporal's SDK takes a failure converter by path: the
// worker and the client require() it. worker/sealed-failures.ts says when it is used.
'use strict';
const { DefaultFailureConverter } = require('@temporalio/common');

/** Errors (by name, the same in every copy of the engine) whose messages are written to be read without the key. */
const WRITTEN_FOR_THE_KEYLESS = new Set(['UnknownPayloadKeyError', 'PayloadDecryptError']);

class SealedFailureConverter extends DefaultFailureConverter {
  constructor() {
    super({ encodeCommonAttributes: true });
    this.inClear = new DefaultFailureConverter();
  }

  errorToFailure(err, payloadConverter) {
    const name = err instanceof Error ? err.name : undefined;
    return WRITTEN_FOR_THE_KEYLESS.has(name) ? this.inClear.errorToFailure(err, payloadConverter) : super.errorToFailure(err, payloadConverter);
  }
}

/** The workflow bundle defines Temporal's workflow API on its global before it loads a converter; a Node process does not. */
const inWorkflowSandbox = typeof globalThis.__TEMPORAL__ === 'object' && globalThis.__TEMPORAL__ !== null;

exports.failureConverter = inWorkflowSandbox ? new DefaultFailureConverter() : new SealedFailureConverter();
