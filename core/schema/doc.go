// Package schema gives polymcp tools their JSON Schemas, in two halves.
//
// # Inference
//
// [For], [ForType] and [ForInput] derive a JSON Schema (2020-12 dialect, no
// "$schema" key) from a Go type, for a tool's inputSchema or outputSchema.
// The rules follow encoding/json, so the schema describes exactly what
// encoding/json reads and writes for that type:
//
//   - a struct is {"type":"object","properties":…,"required":…,
//     "additionalProperties":false}; property names come from `json` tags
//     ("-" skips a field, unexported fields are skipped, embedded structs are
//     flattened with encoding/json's dominance rules); a field is required
//     unless its tag has omitempty or omitzero; the ",string" option makes a
//     number or bool field a string;
//   - the tag `jsonschema:"…"` is the property's description, taken verbatim
//     (commas included); no other key=value forms are parsed;
//   - string, bool, integers ("integer"; unsigned adds "minimum":0), floats
//     ("number"), slices and arrays ("array" with "items"; arrays add
//     minItems = maxItems = N), []byte (a base64 "string"), map[string]T
//     ("object" with "additionalProperties"), pointers (their element),
//     interfaces and json.RawMessage ({}), time.Time ("string", "date-time");
//   - a type with a MarshalJSON method is {} (its shape is unknown), one with
//     only MarshalText is a "string";
//   - a type that needs more (an enum, a pattern) implements [Provider] and
//     returns its own schema;
//   - a named type that recurs is written once under "$defs" and referred to
//     with "$ref":"#/$defs/Name" ("#" when it is the root type); other nested
//     types are written inline;
//   - chan, func, complex and unsafe.Pointer values, and maps whose key is not
//     a string, are errors naming the Go field path.
//
// Keys are written in a fixed order (struct fields in declaration order), so
// the same type always gives the same bytes and tools/list stays stable.
//
// # Validation
//
// [Compile] turns any schema into a [Validator]. It uses
// github.com/santhosh-tekuri/jsonschema/v6 with 2020-12 as the default dialect
// ("$schema" may name draft-07, or 2019-09, draft-06 and draft-04, all
// embedded in that library). It never loads anything: every "$ref" outside
// the document, network or file, is refused. The work is bounded: schemas
// larger than [MaxSchemaBytes] are rejected before parsing, schemas that fan
// out past [MaxSchemaCost] subschemas through $ref and composition keywords
// are rejected after it, and numbers too large to check exactly are invalid.
//
// Schemas within a common subset (objects with properties, required,
// additionalProperties, primitive types, string/bool/null enums and consts,
// numeric and length bounds, items) also get a small compiled validator that
// checks decoded values directly, without allocating on success; every other
// schema is checked by the library. Both give the same verdicts and the same
// messages. For that subset, [Validator.Admits] also walks raw JSON without
// decoding it and says whether it is certainly valid, so a caller decodes
// only what it must report on.
//
// A failed validation is a [*ValidationError]. Its message names the rule
// and the place, never the value, since arguments may hold secrets:
//
//	argument "/count": must be >= 1 (minimum)
//	missing required argument "text"
//	argument "/mode": must be one of the allowed values (enum)
package schema
