package schema

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// collect turns the library's error tree into causes. Only the rule, the
// schema's own numbers and names, and the instance location are used: the
// kinds carry the offending value too, and it is never read.
func collect(e *jsonschema.ValidationError, is *issues) {
	loc := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		if len(e.Causes) == 0 {
			is.add(loc, keywordOf(e), "is invalid")
		}
		for _, c := range e.Causes {
			collect(c, is)
		}
	case *kind.Required:
		for _, name := range k.Missing {
			is.required(loc, name)
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			is.additional(loc, name)
		}
	case *kind.Type:
		is.wrongType(loc, k.Want)
	case *kind.InvalidJsonValue:
		is.invalid(loc)
	case *kind.FalseSchema:
		is.falseSchema(loc)
	case *kind.Enum:
		is.enum(loc)
	case *kind.Const:
		is.konst(loc)
	case *kind.Minimum:
		is.bound(loc, "minimum", k.Want)
	case *kind.Maximum:
		is.bound(loc, "maximum", k.Want)
	case *kind.ExclusiveMinimum:
		is.bound(loc, "exclusiveMinimum", k.Want)
	case *kind.ExclusiveMaximum:
		is.bound(loc, "exclusiveMaximum", k.Want)
	case *kind.MultipleOf:
		is.add(loc, "multipleOf", "must be a multiple of "+formatRat(k.Want))
	case *kind.MinLength:
		is.length(loc, "minLength", k.Want)
	case *kind.MaxLength:
		is.length(loc, "maxLength", k.Want)
	case *kind.Pattern:
		is.add(loc, "pattern", "must match the pattern "+quote(k.Want))
	case *kind.Format:
		is.add(loc, "format", "must be a valid "+k.Want)
	case *kind.MinItems:
		is.count(loc, "minItems", "items", k.Want)
	case *kind.MaxItems:
		is.count(loc, "maxItems", "items", k.Want)
	case *kind.MinProperties:
		is.count(loc, "minProperties", "properties", k.Want)
	case *kind.MaxProperties:
		is.count(loc, "maxProperties", "properties", k.Want)
	case *kind.MinContains:
		is.count(loc, "minContains", "matching items", k.Want)
	case *kind.MaxContains:
		is.count(loc, "maxContains", "matching items", k.Want)
	case *kind.Contains:
		is.add(loc, "contains", "must contain a matching item")
	case *kind.UniqueItems:
		is.add(loc, "uniqueItems", "items must be unique")
	case *kind.AdditionalItems:
		is.add(loc, "additionalItems", "has more items than allowed")
	case *kind.PropertyNames:
		is.add(loc+"/"+escapeToken(k.Property), "propertyNames", "name is not allowed")
	case *kind.Dependency:
		for _, name := range k.Missing {
			is.add(loc+"/"+escapeToken(k.Prop), "dependencies", "requires argument "+quote(name))
		}
	case *kind.DependentRequired:
		for _, name := range k.Missing {
			is.add(loc+"/"+escapeToken(k.Prop), "dependentRequired", "requires argument "+quote(name))
		}
	case *kind.Not:
		is.add(loc, "not", "must not match the excluded schema")
	case *kind.AnyOf:
		is.add(loc, "anyOf", "must match at least one of the allowed schemas")
	case *kind.OneOf:
		is.add(loc, "oneOf", "must match exactly one of the allowed schemas")
	case *kind.ContentEncoding:
		is.add(loc, "contentEncoding", "must be "+k.Want+"-encoded")
	case *kind.ContentMediaType:
		is.add(loc, "contentMediaType", "must be of media type "+k.Want)
	case *kind.ContentSchema:
		is.add(loc, "contentSchema", "content must match its schema")
	case *kind.RefCycle:
		is.add(loc, "$ref", "schema reference cycle")
	default:
		is.add(loc, keywordOf(e), "is invalid")
	}
}

func keywordOf(e *jsonschema.ValidationError) string {
	if kw := strings.Join(e.ErrorKind.KeywordPath(), "/"); kw != "" {
		return kw
	}
	return "schema"
}
