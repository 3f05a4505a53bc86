// Optional properties under constrained decoding. A strict schema (OpenAI strict mode, or the
// grammar model-local builds) must list every property as required, so an optional one is made
// nullable instead, and the model writes null where it meant "left out". Both sides of that
// policy live here: which schemas already take null (they are left as they are), and reading
// such nulls back as absent. The engine's adapters (functions.ts) and model-local/ import this
// one module; it has no imports, so model-local can load it without the engine's dependencies.

type Schema = Record<string, unknown>;

/** Whether null is a value the schema itself allows (then a null is meant, never "left out"). */
export function acceptsNull(schema: unknown, root?: unknown): boolean {
  const s = resolveRef(schema, root);
  if (!isObject(s)) return false;
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return true;
  if (s.const === null || (Array.isArray(s.enum) && s.enum.includes(null))) return true;
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return s.allOf.every((b) => acceptsNull(b, root));
  return ['anyOf', 'oneOf'].some((k) => {
    const branches = s[k];
    return Array.isArray(branches) && branches.some((b) => acceptsNull(b, root));
  });
}

/**
 * The value with every null removed that stands for a left-out optional property: not required
 * by the caller's schema, and not a value that property allows. Follows `$ref`s into the root's
 * `$defs`/`definitions`.
 */
export function dropAbsentNulls(value: unknown, schema: unknown, root: unknown = schema): unknown {
  const s = resolveRef(schema, root);
  if (!isObject(s)) return value;
  if (Array.isArray(value)) return value.map((v) => dropAbsentNulls(v, s.items, root));
  if (!isObject(value) || !isObject(s.properties)) return value;
  const properties = s.properties;
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  // fromEntries defines own properties, so a "__proto__" key from the model stays inert data.
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, v]) => !(v === null && !required.has(key) && !acceptsNull(properties[key], root)))
      .map(([key, v]) => [key, dropAbsentNulls(v, properties[key], root)]),
  );
}

/** Local references only (`#/$defs/x`, `#/definitions/x`); a chain of them is cut off so a cycle cannot hang. */
export function resolveRef(schema: unknown, root: unknown): unknown {
  let node = schema;
  for (let hops = 0; hops < 32 && isObject(node) && typeof node.$ref === 'string'; hops++) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref);
    const defs = m && isObject(root) ? root[m[1] as string] : undefined;
    const next = m && isObject(defs) ? defs[m[2] as string] : undefined;
    if (next === undefined) return node;
    node = next;
  }
  return node;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
