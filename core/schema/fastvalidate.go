package schema

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// frame is one step of the path to the value being checked. Frames live on
// the stack and become a JSON Pointer only when a cause is recorded, so a
// valid instance costs no allocation.
type frame struct {
	parent *frame
	key    string
	index  int // array index when key is "" and index >= 0
}

func (f *frame) pointer() string {
	if f == nil {
		return ""
	}
	tok := f.key
	if f.index >= 0 {
		tok = strconv.Itoa(f.index)
	} else {
		tok = escapeToken(tok)
	}
	return f.parent.pointer() + "/" + tok
}

func (n *fastNode) validate(instance any) error {
	if n.check(instance, nil, nil) {
		return nil
	}
	// Run again, recording every cause: only failures pay for locations.
	var is issues
	n.check(instance, nil, &is)
	return is.err()
}

// check validates v at path. With is nil it stops at the first failure and
// builds nothing, so that a valid instance costs no allocation; otherwise it
// appends every cause to is. It reports whether v is valid.
func (n *fastNode) check(v any, path *frame, is *issues) bool {
	if num, ok := v.(json.Number); ok && outOfRange(num) {
		if is != nil {
			is.outOfRange(path.pointer())
		}
		return false
	}
	if n.boolean != nil {
		if !*n.boolean {
			if is == nil {
				return false
			}
			is.falseSchema(path.pointer())
		}
		return scanNumbers(v, path, is) && *n.boolean
	}
	t := typeOf(v)
	if t == 0 {
		if is != nil {
			is.invalid(path.pointer())
		}
		return false
	}
	if n.types != 0 && n.types&t == 0 && !(n.types&tInteger != 0 && t == tNumber && isInteger(v)) {
		if is != nil {
			is.wrongType(path.pointer(), n.typeNames)
			scanNumbers(v, path, is)
		}
		return false
	}
	if n.hasConst && !simpleIn(v, n.consts) {
		if is != nil {
			is.konst(path.pointer())
			scanNumbers(v, path, is)
		}
		return false
	}
	if n.hasEnum && !simpleIn(v, n.enum) {
		if is != nil {
			is.enum(path.pointer())
			scanNumbers(v, path, is)
		}
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		return n.checkObject(v, path, is)
	case []any:
		return n.checkArray(v, path, is)
	case string:
		return n.checkString(v, path, is)
	case nil, bool:
		return true
	}
	ok := true
	for _, b := range n.bounds {
		if !b.holds(v) {
			if is == nil {
				return false
			}
			is.bound(path.pointer(), b.keyword, b.rat)
			ok = false
		}
	}
	return ok
}

func (n *fastNode) checkString(s string, path *frame, is *issues) bool {
	if n.minLength < 0 && n.maxLength < 0 {
		return true
	}
	ok := true
	l := utf8.RuneCountInString(s)
	if n.minLength >= 0 && l < n.minLength {
		if is == nil {
			return false
		}
		is.length(path.pointer(), "minLength", n.minLength)
		ok = false
	}
	if n.maxLength >= 0 && l > n.maxLength {
		if is == nil {
			return false
		}
		is.length(path.pointer(), "maxLength", n.maxLength)
		ok = false
	}
	return ok
}

func (n *fastNode) checkObject(obj map[string]any, path *frame, is *issues) bool {
	ok := true
	for _, name := range n.required {
		if _, found := obj[name]; !found {
			if is == nil {
				return false
			}
			is.required(path.pointer(), name)
			ok = false
		}
	}
	for name, val := range obj {
		sub, known := n.props[name]
		if !known {
			sub = n.additional
		}
		if is == nil {
			switch {
			case sub != nil:
				ok = sub.check(val, nil, nil)
			case n.closed:
				ok = false
			default:
				ok = scanNumbers(val, nil, nil)
			}
			if !ok {
				return false
			}
			continue
		}
		f := frame{parent: path, key: name, index: -1}
		if sub != nil {
			ok = sub.check(val, &f, is) && ok
			continue
		}
		if n.closed {
			is.additional(path.pointer(), name)
			ok = false
		}
		ok = scanNumbers(val, &f, is) && ok
	}
	return ok
}

func (n *fastNode) checkArray(arr []any, path *frame, is *issues) bool {
	ok := true
	if n.minItems >= 0 && len(arr) < n.minItems {
		if is == nil {
			return false
		}
		is.count(path.pointer(), "minItems", "items", n.minItems)
		ok = false
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		if is == nil {
			return false
		}
		is.count(path.pointer(), "maxItems", "items", n.maxItems)
		ok = false
	}
	for i, e := range arr {
		if is == nil {
			if n.items != nil && !n.items.check(e, nil, nil) || n.items == nil && !scanNumbers(e, nil, nil) {
				return false
			}
			continue
		}
		f := frame{parent: path, index: i}
		if n.items != nil {
			ok = n.items.check(e, &f, is) && ok
		} else {
			ok = scanNumbers(e, &f, is) && ok
		}
	}
	return ok
}

// holds reports whether the number v satisfies the bound.
func (b fastBound) holds(v any) bool { return b.satisfied(compareNum(v, b)) }

// satisfied reports whether a number that compares c with the bound
// satisfies it.
func (b fastBound) satisfied(c int) bool {
	switch b.keyword {
	case "minimum":
		return c >= 0
	case "maximum":
		return c <= 0
	case "exclusiveMinimum":
		return c > 0
	}
	return c < 0 // exclusiveMaximum
}
