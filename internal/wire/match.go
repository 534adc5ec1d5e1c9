package wire

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Placeholders an expected message may use for a value that legitimately
// varies between runs (an opaque cursor, a time). The member must still be
// present.
const (
	Any    = "<any>"
	String = "<string>"
	Number = "<number>"
)

// Captures let one message name a value that varies (a task id) and a
// later one use it: "<?name>" in an expected message matches any string
// and binds name to it; "<=name>" matches only the string bound to name,
// and in a sent message it is replaced by that string.
const (
	capturePrefix = "<?"
	recallPrefix  = "<="
)

// bindings are a transcript's captured values: known from earlier
// messages, found by the match in progress.
type bindings struct {
	known, found map[string]string
}

func placeholder(s, prefix string) (string, bool) {
	if strings.HasPrefix(s, prefix) && strings.HasSuffix(s, ">") && len(s) > len(prefix)+1 {
		return s[len(prefix) : len(s)-1], true
	}
	return "", false
}

// match reports whether the message got equals want, honouring
// placeholders in want. A message that is an array is a JSON-RPC batch
// answer, whose items may come in any order (JSON-RPC 2.0 §6), so its
// items are matched as a multiset. On a mismatch match returns the JSON
// path of the first difference.
func match(want, got any, b *bindings) (bool, string) {
	w, wBatch := want.([]any)
	g, gBatch := got.([]any)
	if !wBatch || !gBatch {
		return matchAt("$", want, got, b)
	}
	if len(w) != len(g) {
		return false, "$"
	}
	used := make([]bool, len(g))
	for i, wi := range w {
		found := false
		for j, gj := range g {
			if ok, _ := matchAt("$", wi, gj, b); ok && !used[j] {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false, fmt.Sprintf("$[%d] (no batch item matches it)", i)
		}
	}
	return true, ""
}

func matchAt(path string, want, got any, b *bindings) (bool, string) {
	switch w := want.(type) {
	case string:
		g, isString := got.(string)
		if name, ok := placeholder(w, capturePrefix); ok && isString {
			b.found[name] = g
			return true, ""
		}
		if name, ok := placeholder(w, recallPrefix); ok {
			v, bound := b.known[name]
			return bound && isString && g == v, path
		}
		switch w {
		case Any:
			return true, ""
		case String:
			_, ok := got.(string)
			return ok, path
		case Number:
			_, ok := got.(json.Number)
			return ok, path
		}
		return isString && g == w, path
	case json.Number:
		g, ok := got.(json.Number)
		return ok && sameNumber(w, g), path
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false, path
		}
		return matchObject(path, w, g, b)
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false, path
		}
		for i := range w {
			if ok, at := matchAt(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], b); !ok {
				return false, at
			}
		}
		return true, ""
	default: // bool, nil
		return want == got, path
	}
}

func matchObject(path string, w, g map[string]any, b *bindings) (bool, string) {
	keys := make([]string, 0, len(w)+len(g))
	for k := range w {
		keys = append(keys, k)
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		wv, inW := w[k]
		gv, inG := g[k]
		at := path + "." + k
		if !inW || !inG {
			return false, at
		}
		if ok, diff := matchAt(at, wv, gv, b); !ok {
			return false, diff
		}
	}
	return true, ""
}

// sameNumber compares two JSON numbers by value (1 and 1.0 are equal).
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	return ok1 && ok2 && x.Cmp(y) == 0
}

// compact renders a decoded value for messages.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}

// recall replaces each "<=name>" in a message to send by the string bound
// to name, JSON-escaped; an unbound name is an error.
func recall(data []byte, known map[string]string) ([]byte, error) {
	out := string(data)
	for {
		i := strings.Index(out, recallPrefix)
		if i < 0 {
			return []byte(out), nil
		}
		j := strings.IndexByte(out[i:], '>')
		if j < 0 {
			return []byte(out), nil
		}
		name := out[i+len(recallPrefix) : i+j]
		v, ok := known[name]
		if !ok {
			return nil, fmt.Errorf("%s%s> names no captured value", recallPrefix, name)
		}
		esc, _ := json.Marshal(v)
		out = out[:i] + string(esc[1:len(esc)-1]) + out[i+j+1:]
	}
}
