package schema

import (
	"bytes"
	"cmp"
	"unicode/utf8"
)

// Admits walks raw JSON against the fast subset without decoding it, for the
// common case of valid tool arguments: decoding them into a map only to look
// was most of the cost of a small call. It answers only "valid" or "not
// sure"; everything it is not sure about (any failure, an escaped string
// under a length or enum rule, a number that is not a short integer under a
// bound, an exponent, deep nesting) goes to Validate, which names the fault.

// maxAdmitDepth bounds the walk's recursion; deeper values go to Validate.
const maxAdmitDepth = 64

// maxAdmitNumber is the longest number literal Admits reads; float64 (which
// Validate's callers decode into) holds every plain literal this long.
const maxAdmitNumber = 300

// maxExactDigits is the most digits of an integer literal that float64
// always holds exactly.
const maxExactDigits = 15

// Admits reports whether raw, JSON whose syntax the caller has already
// checked (a member of a decoded JSON-RPC message), certainly satisfies the
// schema. When it returns true, Validate of raw's decoding returns nil; false
// means only that the caller must run Validate. On bytes that are not JSON it
// returns false or true but never fails.
func (v *Validator) Admits(raw []byte) bool {
	if v.fast == nil {
		return false
	}
	i := skipSpace(raw, 0)
	end, ok := v.fast.admits(raw, i, 0)
	return ok && skipSpace(raw, end) == len(raw)
}

// admits checks the value at d[i] and returns the offset just past it.
func (n *fastNode) admits(d []byte, i, depth int) (int, bool) {
	if n.boolean != nil {
		if !*n.boolean {
			return i, false
		}
		return admitAny(d, i, depth)
	}
	if i >= len(d) || depth > maxAdmitDepth {
		return i, false
	}
	switch d[i] {
	case '{':
		if !n.allows(tObject) || n.hasConst || n.hasEnum {
			return i, false
		}
		return n.admitObject(d, i, depth)
	case '[':
		if !n.allows(tArray) || n.hasConst || n.hasEnum {
			return i, false
		}
		return n.admitArray(d, i, depth)
	case '"':
		end, s, escaped := rawString(d, i)
		if end < 0 || !n.allows(tString) {
			return i, false
		}
		if n.hasConst || n.hasEnum || n.minLength >= 0 || n.maxLength >= 0 {
			if escaped {
				return i, false
			}
			if !n.inSets(func(e any) bool { t, ok := e.(string); return ok && t == string(s) }) {
				return i, false
			}
			if l := utf8.RuneCount(s); n.minLength >= 0 && l < n.minLength || n.maxLength >= 0 && l > n.maxLength {
				return i, false
			}
		}
		return end, true
	case 't', 'f':
		val := d[i] == 't'
		text := "false"
		if val {
			text = "true"
		}
		end, ok := literal(d, i, text)
		if !ok || !n.allows(tBoolean) || !n.inSets(func(e any) bool { b, ok := e.(bool); return ok && b == val }) {
			return i, false
		}
		return end, true
	case 'n':
		end, ok := literal(d, i, "null")
		if !ok || !n.allows(tNull) || !n.inSets(func(e any) bool { return e == nil }) {
			return i, false
		}
		return end, true
	}
	return n.admitNumber(d, i)
}

// allows reports whether the type keyword lets a value of type t through
// (integers are numbers the caller checks itself).
func (n *fastNode) allows(t typeSet) bool { return n.types == 0 || n.types&t != 0 }

// inSets reports whether const and enum, where present, hold a value for
// which in is true.
func (n *fastNode) inSets(in func(e any) bool) bool {
	return (!n.hasConst || anyOf(n.consts, in)) && (!n.hasEnum || anyOf(n.enum, in))
}

func anyOf(set []any, in func(e any) bool) bool {
	for _, e := range set {
		if in(e) {
			return true
		}
	}
	return false
}

// admitNumber checks a number literal. Const and enum hold no numbers in
// the fast subset; bounds and the integer type are judged only for an
// integer of at most maxExactDigits digits, which every decoding holds
// exactly.
func (n *fastNode) admitNumber(d []byte, i int) (int, bool) {
	end, digits, plainInt, ok := numberLiteral(d, i)
	if !ok || n.hasConst || n.hasEnum {
		return i, false
	}
	needValue := len(n.bounds) > 0 || n.types != 0 && n.types&tNumber == 0
	if !needValue {
		return end, n.types == 0 || n.types&tNumber != 0
	}
	if !plainInt || digits > maxExactDigits || n.types != 0 && n.types&(tNumber|tInteger) == 0 {
		return i, false
	}
	x := float64(parseDigits(d[i:end]))
	for _, b := range n.bounds {
		if !b.satisfied(cmp.Compare(x, b.f)) {
			return i, false
		}
	}
	return end, true
}

func (n *fastNode) admitObject(d []byte, i, depth int) (int, bool) {
	if len(n.required) > 63 {
		return i, false
	}
	var seen uint64
	all := uint64(1)<<len(n.required) - 1
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, all == 0
	}
	for {
		end, key, escaped := rawString(d, i)
		if end < 0 || escaped {
			return i, false
		}
		i = skipSpace(d, end)
		if i >= len(d) || d[i] != ':' {
			return i, false
		}
		i = skipSpace(d, i+1)
		sub, known := n.props[string(key)]
		if !known {
			sub = n.additional
		}
		var ok bool
		switch {
		case sub != nil:
			i, ok = sub.admits(d, i, depth+1)
		case n.closed:
			return i, false
		default:
			i, ok = admitAny(d, i, depth+1)
		}
		if !ok {
			return i, false
		}
		// A duplicate member is checked each time: every one valid means
		// the one a decoder keeps is valid.
		for r, name := range n.required {
			if name == string(key) {
				seen |= 1 << r
			}
		}
		if i, ok = nextMember(d, i, '}'); !ok {
			return i, false
		}
		if d[i-1] == '}' {
			return i, seen == all
		}
	}
}

func (n *fastNode) admitArray(d []byte, i, depth int) (int, bool) {
	count := 0
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		i++
	} else {
		for {
			var ok bool
			if n.items != nil {
				i, ok = n.items.admits(d, i, depth+1)
			} else {
				i, ok = admitAny(d, i, depth+1)
			}
			if !ok {
				return i, false
			}
			count++
			if i, ok = nextMember(d, i, ']'); !ok {
				return i, false
			}
			if d[i-1] == ']' {
				break
			}
		}
	}
	if n.minItems >= 0 && count < n.minItems || n.maxItems >= 0 && count > n.maxItems {
		return i, false
	}
	return i, true
}

// nextMember steps over the ',' or closing byte after a member or element:
// the offset returned is past it, and d[offset-1] tells which it was.
func nextMember(d []byte, i int, closing byte) (int, bool) {
	i = skipSpace(d, i)
	if i >= len(d) {
		return i, false
	}
	switch d[i] {
	case closing:
		return i + 1, true
	case ',':
		return skipSpace(d, i+1), true
	}
	return i, false
}

// admitAny walks a value no keyword constrains. Validate still rejects a
// number beyond the exact-number limits anywhere, so numbers are read.
func admitAny(d []byte, i, depth int) (int, bool) {
	if i >= len(d) || depth > maxAdmitDepth {
		return i, false
	}
	switch d[i] {
	case '{', '[':
		closing := byte('}')
		if d[i] == '[' {
			closing = ']'
		}
		object := d[i] == '{'
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == closing {
			return i + 1, true
		}
		for {
			var ok bool
			if object {
				end, _, _ := rawString(d, i)
				if end < 0 {
					return i, false
				}
				if i = skipSpace(d, end); i >= len(d) || d[i] != ':' {
					return i, false
				}
				i = skipSpace(d, i+1)
			}
			if i, ok = admitAny(d, i, depth+1); !ok {
				return i, false
			}
			if i, ok = nextMember(d, i, closing); !ok {
				return i, false
			}
			if d[i-1] == closing {
				return i, true
			}
		}
	case '"':
		end, _, _ := rawString(d, i)
		return end, end >= 0
	case 't':
		return literal(d, i, "true")
	case 'f':
		return literal(d, i, "false")
	case 'n':
		return literal(d, i, "null")
	}
	end, _, _, ok := numberLiteral(d, i)
	return end, ok
}

// rawString reads the string at d[i]: the offset past its closing quote
// (-1 when there is none), its raw content, and whether that holds escapes.
func rawString(d []byte, i int) (int, []byte, bool) {
	if i >= len(d) || d[i] != '"' {
		return -1, nil, false
	}
	start := i + 1
	escaped := false
	for j := start; ; {
		k := bytes.IndexByte(d[j:], '"')
		if k < 0 {
			return -1, nil, false
		}
		q := j + k
		// The quote closes the string unless an odd run of backslashes
		// escapes it.
		b := q
		for b > start && d[b-1] == '\\' {
			b--
		}
		if (q-b)%2 == 0 {
			content := d[start:q]
			escaped = escaped || bytes.IndexByte(content, '\\') >= 0
			return q + 1, content, escaped
		}
		escaped = true
		j = q + 1
	}
}

// literal reads text (true, false or null) at d[i].
func literal(d []byte, i int, text string) (int, bool) {
	if !bytes.HasPrefix(d[i:], []byte(text)) {
		return i, false
	}
	return i + len(text), true
}

// numberLiteral reads a number at d[i] (JSON's grammar): the offset past it,
// its count of integer digits, and whether it is a plain integer (no
// fraction, no exponent). A literal with an exponent or longer than
// maxAdmitNumber is refused, since only Validate applies the exact-number
// limits to it.
func numberLiteral(d []byte, i int) (end, digits int, plainInt, ok bool) {
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	k := j
	for k < len(d) && d[k] >= '0' && d[k] <= '9' {
		k++
	}
	digits = k - j
	if digits == 0 || digits > 1 && d[j] == '0' {
		return i, 0, false, false
	}
	plainInt = true
	if k < len(d) && d[k] == '.' {
		f := k + 1
		for f < len(d) && d[f] >= '0' && d[f] <= '9' {
			f++
		}
		if f == k+1 {
			return i, 0, false, false
		}
		k, plainInt = f, false
	}
	if k < len(d) && (d[k] == 'e' || d[k] == 'E') || k-i > maxAdmitNumber {
		return i, 0, false, false
	}
	return k, digits, plainInt, true
}

// parseDigits reads an integer literal of at most maxExactDigits digits.
func parseDigits(lit []byte) int64 {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	var v int64
	for _, c := range lit {
		v = v*10 + int64(c-'0')
	}
	if neg {
		return -v
	}
	return v
}

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}
