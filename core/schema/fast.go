package schema

import (
	"encoding/json"
	"math/big"
	"strconv"
)

// fastNode is one schema of the fast subset, compiled for direct checks on
// decoded values. Checks run in the library's order (type, const, enum, then
// the keywords of the value's type) and report the same causes, so both
// paths agree on verdicts and messages.
type fastNode struct {
	boolean *bool // a true/false schema; nothing else is set

	types     typeSet
	typeNames []string
	consts    []any // a const value (len 1), when set
	enum      []any // string, bool or nil values; nil when absent
	hasConst  bool
	hasEnum   bool

	minLength, maxLength int // -1 when absent
	bounds               []fastBound

	props      map[string]*fastNode
	required   []string
	closed     bool      // additionalProperties: false
	additional *fastNode // additionalProperties as a schema

	items              *fastNode
	minItems, maxItems int // -1 when absent
}

// fastBound is minimum, maximum, exclusiveMinimum or exclusiveMaximum.
type fastBound struct {
	keyword string
	f       float64  // the float nearest to rat
	rat     *big.Rat // the bound as written, which is f's shortest decimal form
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

var typeBits = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "integer": tInteger, "number": tNumber,
	"string": tString, "array": tArray, "object": tObject,
}

// annotations are keywords that never affect validation here. "format" is
// one only in 2020-12, where the library does not assert it by default, and
// content* only because content assertions stay off.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"contentEncoding": true, "contentMediaType": true,
}

// compileFast returns the fast validator of doc, or nil when doc uses
// anything outside the subset (the library then does all the work).
func compileFast(doc any, d dialect) *fastNode {
	if d != draft2020 && d != draft7 {
		return nil
	}
	n, ok := fastCompile(doc, d, true)
	if !ok {
		return nil
	}
	return n
}

func fastCompile(doc any, d dialect, root bool) (*fastNode, bool) {
	if b, ok := doc.(bool); ok {
		return &fastNode{boolean: &b}, true
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, false
	}
	if len(m) == 0 {
		t := true // the library compiles {} to true, skipping even the JSON-value check
		return &fastNode{boolean: &t}, true
	}
	n := &fastNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	for k, v := range m {
		if annotations[k] || (k == "format" && d == draft2020) || (k == "$schema" && root) {
			continue
		}
		if !n.keyword(k, v, d) {
			return nil, false
		}
	}
	return n, true
}

// keyword compiles one keyword into n, reporting false if it is outside the subset.
func (n *fastNode) keyword(k string, v any, d dialect) bool {
	switch k {
	case "type":
		return n.setTypes(v)
	case "const":
		n.hasConst, n.consts = true, []any{v}
		return isSimple(v)
	case "enum":
		arr, ok := v.([]any)
		for _, e := range arr {
			ok = ok && isSimple(e)
		}
		n.hasEnum, n.enum = true, arr
		return ok
	case "minLength", "maxLength", "minItems", "maxItems":
		i, ok := nonNegative(v)
		switch k {
		case "minLength":
			n.minLength = i
		case "maxLength":
			n.maxLength = i
		case "minItems":
			n.minItems = i
		default:
			n.maxItems = i
		}
		return ok
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		b, ok := exactBound(k, v)
		n.bounds = append(n.bounds, b)
		return ok
	case "required":
		arr, ok := v.([]any)
		for _, e := range arr {
			s, isStr := e.(string)
			ok = ok && isStr
			n.required = append(n.required, s)
		}
		return ok
	case "properties":
		props, ok := v.(map[string]any)
		n.props = make(map[string]*fastNode, len(props))
		for name, sub := range props {
			c, subOK := fastCompile(sub, d, false)
			ok = ok && subOK
			n.props[name] = c
		}
		return ok
	case "additionalProperties":
		if b, isBool := v.(bool); isBool {
			n.closed = !b
			return true
		}
		c, ok := fastCompile(v, d, false)
		n.additional = c
		return ok
	case "items":
		c, ok := fastCompile(v, d, false) // draft-07's array form is not a schema: refused
		n.items = c
		return ok
	}
	return false
}

func (n *fastNode) setTypes(v any) bool {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	for _, e := range names {
		s, _ := e.(string)
		bit, known := typeBits[s]
		if !known {
			return false
		}
		n.types |= bit
		n.typeNames = append(n.typeNames, s)
	}
	return len(names) > 0
}

// isSimple reports whether an enum or const value is compared by the fast path:
// numbers, arrays and objects are left to the library.
func isSimple(v any) bool {
	switch v.(type) {
	case string, bool, nil:
		return true
	}
	return false
}

func nonNegative(v any) (int, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(string(num))
	return i, err == nil && i >= 0
}

// exactBound accepts a bound only when it is the shortest decimal form of its
// nearest float64 f (1, 0.5 and 0.1 are; 0.10000000000000001 is not). The
// library compares the shortest decimal form of a float64 instance x with the
// bound as exact rationals; rounding intervals of distinct floats are disjoint
// and ordered, so that comparison always agrees with comparing x and f.
func exactBound(keyword string, v any) (fastBound, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return fastBound{}, false
	}
	rat, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return fastBound{}, false
	}
	f, _ := rat.Float64()
	back, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return fastBound{keyword: keyword, f: f, rat: rat}, ok && back.Cmp(rat) == 0
}
