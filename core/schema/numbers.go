package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
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

// typeOf gives the JSON type of a decoded value, as the library sees it
// (integers are numbers here; the integer type is a check on numbers), or 0
// for a value that is not JSON.
func typeOf(v any) typeSet {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case string:
		return tString
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return tNumber
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return 0
		}
		return tNumber
	case json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return tNumber
	}
	return 0
}

func simpleIn(v any, set []any) bool {
	for _, e := range set {
		switch e := e.(type) {
		case string:
			if s, ok := v.(string); ok && s == e {
				return true
			}
		case bool:
			if b, ok := v.(bool); ok && b == e {
				return true
			}
		case nil:
			if v == nil {
				return true
			}
		}
	}
	return false
}

// maxExact is the largest magnitude below which every integer is a float64.
const maxExact = 1 << 53

// smallInt returns v as an int64 when it is an integer a float64 holds exactly.
func smallInt(v any) (int64, bool) {
	var i int64
	switch v := v.(type) {
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, false
		}
		i = n
	case int:
		i = int64(v)
	case int8:
		i = int64(v)
	case int16:
		i = int64(v)
	case int32:
		i = int64(v)
	case int64:
		i = v
	case uint8:
		i = int64(v)
	case uint16:
		i = int64(v)
	case uint32:
		i = int64(v)
	default:
		return 0, false
	}
	return i, i > -maxExact && i < maxExact
}

func isInteger(v any) bool {
	switch x := v.(type) {
	case float64:
		return x == math.Trunc(x)
	}
	if _, ok := smallInt(v); ok {
		return true
	}
	r, ok := toRat(v)
	return ok && r.IsInt()
}

// compareNum compares the number v with b, as the library would.
func compareNum(v any, b fastBound) int {
	var x float64
	if f, ok := v.(float64); ok {
		x = f
	} else if i, ok := smallInt(v); ok {
		x = float64(i)
	} else {
		r, ok := toRat(v)
		if !ok {
			return 0
		}
		return r.Cmp(b.rat)
	}
	return cmp.Compare(x, b.f)
}

// toRat reads a number exactly the way the library does: its %v form.
func toRat(v any) (*big.Rat, bool) {
	return new(big.Rat).SetString(fmt.Sprint(v))
}
