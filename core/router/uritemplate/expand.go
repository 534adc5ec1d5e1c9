package uritemplate

import (
	"fmt"
	"slices"
	"strings"
)

// Pair is one member of an ordered associative array value.
type Pair struct {
	Key, Value string
}

// Expand expands the template. Each value is a string, []string, []Pair or
// map[string]string (expanded in sorted key order); a missing or nil value
// is undefined. Variables not in the template are ignored.
func (t *Template) Expand(vars map[string]any) (string, error) {
	var b strings.Builder
	for i := range t.parts {
		p := &t.parts[i]
		if p.expr == nil {
			b.WriteString(p.lit)
			continue
		}
		if err := p.expr.expand(&b, vars); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func (e *expr) expand(b *strings.Builder, vars map[string]any) error {
	op := e.op
	first := true
	lead := func() {
		if first {
			b.WriteString(op.first)
			first = false
		} else {
			b.WriteString(op.sep)
		}
	}
	for _, v := range e.vars {
		var pairs []Pair
		switch val := vars[v.name].(type) {
		case nil:
			continue
		case string:
			lead()
			if op.named {
				b.WriteString(v.name)
				if val == "" {
					b.WriteString(op.ifEmpty)
					continue
				}
				b.WriteByte('=')
			}
			if v.prefix > 0 {
				val = truncate(val, v.prefix)
			}
			encode(b, val, op.allowReserved)
			continue
		case []string:
			if len(val) == 0 {
				continue
			}
			if v.prefix > 0 {
				return prefixError(v)
			}
			lead()
			e.expandList(b, v, val)
			continue
		case []Pair:
			pairs = val
		case map[string]string:
			pairs = make([]Pair, 0, len(val))
			for k, x := range val {
				pairs = append(pairs, Pair{k, x})
			}
			slices.SortFunc(pairs, func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
		default:
			return fmt.Errorf("uritemplate: variable %q: unsupported value type %T", v.name, val)
		}
		if len(pairs) == 0 {
			continue
		}
		if v.prefix > 0 {
			return prefixError(v)
		}
		lead()
		e.expandPairs(b, v, pairs)
	}
	return nil
}

func prefixError(v varspec) error {
	return fmt.Errorf("uritemplate: variable %q: prefix modifier on a list or associative array", v.name)
}

func (e *expr) expandList(b *strings.Builder, v varspec, list []string) {
	op := e.op
	if !v.explode {
		if op.named {
			b.WriteString(v.name)
			b.WriteByte('=')
		}
		for i, s := range list {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, s, op.allowReserved)
		}
		return
	}
	for i, s := range list {
		if i > 0 {
			b.WriteString(op.sep)
		}
		if op.named {
			b.WriteString(v.name)
			if s == "" {
				b.WriteString(op.ifEmpty)
				continue
			}
			b.WriteByte('=')
		}
		encode(b, s, op.allowReserved)
	}
}

func (e *expr) expandPairs(b *strings.Builder, v varspec, pairs []Pair) {
	op := e.op
	if !v.explode {
		if op.named {
			b.WriteString(v.name)
			b.WriteByte('=')
		}
		for i, p := range pairs {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, p.Key, op.allowReserved)
			b.WriteByte(',')
			encode(b, p.Value, op.allowReserved)
		}
		return
	}
	for i, p := range pairs {
		if i > 0 {
			b.WriteString(op.sep)
		}
		encode(b, p.Key, op.allowReserved)
		if op.named && p.Value == "" {
			b.WriteString(op.ifEmpty)
			continue
		}
		b.WriteByte('=')
		encode(b, p.Value, op.allowReserved)
	}
}
