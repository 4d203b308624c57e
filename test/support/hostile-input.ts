// fast-check arbitraries of hostile input for the fuzz test: strings, JSON values, bodies built
// from an OpenAPI schema and then broken, raw bodies, path segments and query strings.
import fc from 'fast-check';

/** A JSON Schema as /openapi.json carries it (zod's toJSONSchema, openapi-3.0 target). */
export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  nullable?: boolean;
  format?: string;
  example?: unknown;
  maxLength?: number;
}

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\uffff',
  '\ufeff',
  '\u202e',
  '\u0001\u001f\u007f',
  '\r\n\t',
  '💩',
  'e\u0301',
  'null',
  'true',
  '0',
  '-1',
  '1e400',
  '{}',
  '[]',
  '../../etc/passwd',
  '%00',
  '%ZZ',
  "'; DROP TABLE apps; --",
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  `call_${'0'.repeat(32)}`,
  'x'.repeat(201),
];

/** Any UTF-16 code unit, lone surrogates and NUL included (fast-check's own units skip half surrogates). */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: codeUnit, maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.constantFrom(1000, 70_000, 400_000).map((n) => 'x'.repeat(n)) },
);

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 2 ** 53 + 2, -(2 ** 60), 1e308, 5e-324, Number.MAX_SAFE_INTEGER),
);

const scalar: fc.Arbitrary<unknown> = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** JSON-shaped values (JSON.stringify turns NaN and Infinity into null) with hostile strings as keys and values. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    { weight: 3, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }) },
  ),
})).value;

const nested = (levels: number) => '{"a":['.repeat(levels) + '1' + ']}'.repeat(levels);

/** Raw texts no serializer makes: deep nesting, numbers that do not round-trip, broken and duplicated JSON. */
const rawJsonText = fc.oneof(
  fc.integer({ min: 30, max: 20_000 }).map(nested),
  fc.constantFrom(
    '{"n":1e400}',
    '{"n":-1e400}',
    '{"n":123456789012345678901234567890}',
    '{"n":-0}',
    '{"n":1E+2}',
    '{"n":0.1e-400}',
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '\ufeff{}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a\\u0000":1}',
    '{',
    '}',
    '[',
    '"just a string"',
    '42',
    'null',
    'true',
    '[]',
    '{"a":',
    '{"a":"\\x"}',
    '{"a":01}',
    '{"a":NaN}',
    '{"a":Infinity}',
    "{'a':1}",
    '{"a":1,}',
    '   ',
    '',
  ),
);

export interface RawBody {
  bytes: Uint8Array | string;
  contentType?: string;
}

const oddContentType = fc.constantFrom(
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  'application/json; charset=nonsense',
  undefined,
);
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: oddContentType },
);

/** Plausible values of fields by name (`tool`, `app_id`, `arguments`, `url` for any URI): known ids and names. */
export type KnownFields = Record<string, fc.Arbitrary<unknown>>;

/** A body of a route with a JSON schema: mostly near-valid (built from the schema, then broken), else anything. */
export function bodyFor(schema: JsonSchema | undefined, known: KnownFields): fc.Arbitrary<RawBody | undefined> {
  const fromSchema = schema ? mutated(valueOf(schema, known, 0)) : hostileJson;
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 10,
      arbitrary: fc
        .tuple(fromSchema, contentType)
        .map(([value, type]) => ({ bytes: JSON.stringify(value) ?? '', contentType: type })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(hostileJson, contentType)
        .map(([value, type]) => ({ bytes: JSON.stringify(value) ?? '', contentType: type })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(rawJsonText, contentType).map(([text, type]) => ({ bytes: text, contentType: type })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.uint8Array({ maxLength: 300 }), contentType)
        .map(([bytes, type]) => ({ bytes, contentType: type })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ bytes: `{"a":"${'x'.repeat(1_100_000)}"}`, contentType: 'application/json' }),
    },
  );
}

/** A value of the schema, with a known id or name where the field names one. */
function valueOf(schema: JsonSchema, known: KnownFields, depth: number, name?: string): fc.Arbitrary<unknown> {
  const wrong = depth > 3 ? scalar : hostileJson;
  const options: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) options.push(fc.constantFrom(...schema.enum));
  else if (schema.anyOf ?? schema.oneOf)
    options.push(...(schema.anyOf ?? schema.oneOf)!.map((s) => valueOf(s, known, depth + 1, name)));
  else if (name && known[name]) options.push(known[name]);
  else if (schema.type === 'object' || schema.properties) {
    const properties = schema.properties ?? {};
    const model = Object.fromEntries(
      Object.entries(properties).map(([key, s]) => [key, valueOf(s, known, depth + 1, key)]),
    );
    options.push(fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in properties) }));
  } else if (schema.type === 'array')
    options.push(fc.array(valueOf(schema.items ?? {}, known, depth + 1), { maxLength: 3 }));
  else if (schema.type === 'string' && schema.format === 'uri')
    options.push(known.url ?? fc.constant('http://127.0.0.1:1/'));
  else if (schema.type === 'string' && schema.example !== undefined) options.push(fc.constant(schema.example));
  else if (schema.type === 'string') options.push(fc.string({ maxLength: schema.maxLength ?? 30 }));
  else if (schema.type === 'boolean') options.push(fc.boolean());
  else if (schema.type === 'number' || schema.type === 'integer') options.push(fc.constantFrom(10, 30, 1, 0, 20));
  else options.push(hostileJson);
  if (schema.nullable) options.push(fc.constant(null));
  return fc.oneof({ weight: 20, arbitrary: fc.oneof(...options) }, { weight: 1, arbitrary: wrong });
}

/** Breaks a near-valid object half the time: an unknown field, a field replaced by hostile JSON, a field removed. */
function mutated(object: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(object, fc.nat(5), hostileString, hostileJson).map(([value, how, key, junk]) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const copy = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    if (how === 1) copy[key] = junk;
    else if (how === 2 && keys.length) copy[keys[junk === null ? 0 : keys.length - 1]] = junk;
    else if (how === 3 && keys.length) delete copy[keys[0]];
    return copy;
  });
}

/** A path segment as sent: percent-encoded hostile text, raw bytes, or shapes a router may trip on. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  hostileString.filter((s) => !/[\ud800-\udfff]/.test(s) && s.length < 5000).map(encodeURIComponent),
  fc
    .uint8Array({ minLength: 1, maxLength: 20 })
    .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom(
    '%',
    '%zz',
    '%C0%AF',
    '%ED%A0%80',
    '%2F',
    '%2e%2e',
    '%00',
    '%FF%FE',
    'x'.repeat(8000),
    ';',
    '*',
    '~',
    'a%20b',
  ),
);

/** A query string over the route's parameters and some it does not have, values hostile or plausible. */
export function queryFor(names: string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    fc.constantFrom(
      '',
      '0',
      '1',
      '-1',
      '20',
      '101',
      '1e400',
      'NaN',
      '0x10',
      'true',
      'false',
      'ru',
      'en',
      'queued',
      'in_progress',
      'aGVsbG8',
    ),
    hostileSegment,
  );
  const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileSegment });
  return fc
    .array(fc.tuple(name, value, fc.nat(4)), { maxLength: 4 })
    .map((pairs) =>
      pairs.map(([key, v, shape]) => (shape === 0 ? `${key}[x]=${v}` : shape === 1 ? key : `${key}=${v}`)).join('&'),
    );
}
