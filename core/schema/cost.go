package schema

import (
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxSchemaCost bounds the size of a schema once its references are followed:
// the number of subschemas in the tree obtained by copying each referenced
// (or shared) subschema in place, recursion counting once. It stops schemas
// such as thirty $defs that each say anyOf [next, next] — a few hundred
// bytes, a billion checks per value — at Compile.
//
// A recursive schema whose recursion fans out at one place in the instance
// (anyOf [{items: self}, {items: self}]) is not caught: its cost grows with
// the depth of the instance, which the JSON decoder bounds.
const MaxSchemaCost = 100_000

// schemaCost returns the unfolded size of s, saturating just above MaxSchemaCost.
func schemaCost(s *jsonschema.Schema) int {
	c := coster{memo: map[*jsonschema.Schema]int{}, active: map[*jsonschema.Schema]bool{}}
	return c.cost(s)
}

type coster struct {
	memo   map[*jsonschema.Schema]int
	active map[*jsonschema.Schema]bool
}

func (c *coster) cost(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	if c.active[s] {
		return 1
	}
	if n, ok := c.memo[s]; ok {
		return n
	}
	c.active[s] = true
	total := 1
	for _, sub := range children(s) {
		total = min(total+c.cost(sub), MaxSchemaCost+1)
	}
	c.active[s] = false
	c.memo[s] = total
	return total
}

// children lists every subschema s applies, in a fixed order.
func children(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else,
		s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema}
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	out = append(out, sortedValues(s.Properties)...)
	out = append(out, sortedValues(s.DependentSchemas)...)
	for _, k := range sortedKeys(s.Dependencies) {
		if sub, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			out = append(out, sub)
		}
	}
	patterns := make([]jsonschema.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		patterns = append(patterns, re)
	}
	slices.SortFunc(patterns, func(a, b jsonschema.Regexp) int { return strings.Compare(a.String(), b.String()) })
	for _, re := range patterns {
		out = append(out, s.PatternProperties[re])
	}
	for _, v := range []any{s.AdditionalProperties, s.AdditionalItems, s.Items} {
		switch v := v.(type) {
		case *jsonschema.Schema:
			out = append(out, v)
		case []*jsonschema.Schema:
			out = append(out, v...)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedValues(m map[string]*jsonschema.Schema) []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}
