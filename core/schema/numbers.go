package schema

import (
	"encoding/json"
	"strings"
)

// Limits on an exact number (json.Number). Checking one against a bound, an
// integer type or a numeric enum builds an exact rational of its value, and
// "1e999999999" is ten bytes that would cost gigabits; float64 cannot hold
// such numbers anyway.
const (
	maxNumberLen      = 1024 // bytes of the number's text
	maxNumberExponent = 1024 // magnitude of its decimal exponent
)

// outOfRange reports whether n is beyond the limits above.
func outOfRange(n json.Number) bool {
	s := string(n)
	if len(s) > maxNumberLen {
		return true
	}
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	exp := strings.TrimLeft(strings.TrimLeft(s[i+1:], "+-"), "0")
	if len(exp) > 4 {
		return true
	}
	e := 0
	for _, c := range exp {
		e = e*10 + int(c-'0')
	}
	return e > maxNumberExponent
}

// scanNumbers reports whether v holds no out-of-range number, recording
// each one in is unless is is nil (then it stops at the first). Both paths
// reject such an instance with these causes alone, before checking anything
// else; the fast path scans exactly the values its schema does not look at.
func scanNumbers(v any, path *frame, is *issues) bool {
	switch v := v.(type) {
	case json.Number:
		if !outOfRange(v) {
			return true
		}
		if is != nil {
			is.outOfRange(path.pointer())
		}
		return false
	case map[string]any:
		ok := true
		for k, e := range v {
			if is == nil {
				if !scanNumbers(e, nil, nil) {
					return false
				}
				continue
			}
			f := frame{parent: path, key: k, index: -1}
			ok = scanNumbers(e, &f, is) && ok
		}
		return ok
	case []any:
		ok := true
		for i, e := range v {
			if is == nil {
				if !scanNumbers(e, nil, nil) {
					return false
				}
				continue
			}
			f := frame{parent: path, index: i}
			ok = scanNumbers(e, &f, is) && ok
		}
		return ok
	}
	return true
}
