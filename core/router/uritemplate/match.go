package uritemplate

import "strings"

// Match reports whether uri is an expansion of the template and, if so,
// returns the variables it defines, percent-decoded. Undefined variables
// are absent from the map. See the package documentation for what Match
// can invert; a template with an exploded variable never matches.
//
// Match makes one left-to-right pass over uri and never backtracks: its
// cost is linear in len(uri), plus a term bounded by the template's size.
func (t *Template) Match(uri string) (map[string]string, bool) {
	m := matcher{t: t, s: uri}
	if !m.run() {
		return nil, false
	}
	if m.vars == nil {
		m.vars = map[string]string{}
	}
	return m.vars, true
}

type matcher struct {
	t    *Template
	s    string
	pos  int
	end  int // where the template's final literal starts, or len(s)
	vars map[string]string

	steps int // work done, for tests of the linear bound
}

func (m *matcher) run() bool {
	t := m.t
	if !t.matchable {
		return false
	}
	m.end = len(m.s)
	if t.tailLit {
		last := t.parts[len(t.parts)-1].lit
		m.steps += len(last)
		if !strings.HasSuffix(m.s, last) {
			return false
		}
		m.end -= len(last)
	}
	for i := range t.parts {
		p := &t.parts[i]
		switch {
		case p.expr != nil:
			if !m.expr(p.expr) {
				return false
			}
		case !m.litAt(p, i == len(t.parts)-1, m.pos):
			return false
		default:
			m.pos += len(p.lit)
		}
	}
	return m.pos == len(m.s)
}

// litAt reports whether literal p occurs in s at i. The template's last
// literal occurs only at m.end.
func (m *matcher) litAt(p *part, last bool, i int) bool {
	if last {
		return i == m.end
	}
	m.steps += len(p.lit)
	return strings.HasPrefix(m.s[i:], p.lit)
}

// atBound reports whether the literal that follows e starts at i.
func (m *matcher) atBound(e *expr, i int) bool {
	return e.bound != nil && m.litAt(e.bound, e.boundLast, i)
}

// has reports whether c is the next character.
func (m *matcher) has(c byte) bool {
	return m.pos < m.end && m.s[m.pos] == c
}

func (m *matcher) expr(e *expr) bool {
	switch e.op.char {
	case 0, '+', '#':
		return m.unnamed(e)
	case '.', '/':
		return m.segments(e)
	}
	return m.named(e)
}

// unnamed matches {x,y}, {+x,y} and {#x,y}: values separated by commas.
func (m *matcher) unnamed(e *expr) bool {
	hash := e.op.char == '#'
	if hash {
		if !m.has('#') || m.atBound(e, m.pos) {
			return true
		}
		m.pos++
	}
	for i, v := range e.vars {
		last := i == len(e.vars)-1
		set := &e.stop
		if last {
			set = &e.stopLast
		}
		start := m.pos
		m.pos = m.capture(e, start, set)
		more := !last && m.has(',') && !m.atBound(e, m.pos)
		if i == 0 && m.pos == start && !more && !hash {
			return true // nothing there: every variable undefined
		}
		if !m.set(v, m.s[start:m.pos]) {
			return false
		}
		if !more {
			return true
		}
		m.pos++
	}
	return true
}

// segments matches {.x,y} and {/x,y}: one prefixed value per variable.
func (m *matcher) segments(e *expr) bool {
	for _, v := range e.vars {
		if !m.has(e.op.char) || m.atBound(e, m.pos) {
			return true
		}
		start := m.pos + 1
		m.pos = m.capture(e, start, &e.stop)
		if !m.set(v, m.s[start:m.pos]) {
			return false
		}
	}
	return true
}

// named matches {;x,y}, {?x,y} and {&x,y}: name or name=value parameters
// in any order.
func (m *matcher) named(e *expr) bool {
	var seen uint64 // MaxVariables <= 64
	lead := e.op.first[0]
	for {
		if !m.has(lead) || m.atBound(e, m.pos) {
			return true
		}
		i, nameEnd := m.name(e, m.pos+1)
		if i < 0 {
			return true // not ours: leave it to the rest of the template
		}
		if seen&(1<<i) != 0 {
			return false // a repeated parameter is an exploded list
		}
		seen |= 1 << i
		start := nameEnd
		m.pos = nameEnd
		if nameEnd < m.end && m.s[nameEnd] == '=' && !m.atBound(e, nameEnd) {
			start = nameEnd + 1
			m.pos = m.capture(e, start, &e.stop)
		}
		if !m.set(e.vars[i], m.s[start:m.pos]) {
			return false
		}
		lead = e.op.sep[0]
	}
}

// name finds the variable of e whose name appears at j, ended by '=', a
// value stop or the following literal. It returns the variable's index and
// where the name ends, or -1. Its cost is bounded by the template size.
func (m *matcher) name(e *expr, j int) (int, int) {
	for i, v := range e.vars {
		end := j + len(v.name)
		m.steps += len(v.name)
		if end > m.end || m.s[j:end] != v.name {
			continue
		}
		if end == m.end || m.s[end] == '=' || e.stop.has(m.s[end]) || m.atBound(e, end) {
			return i, end
		}
	}
	return -1, 0
}

// capture returns where the value starting at p ends: before the first
// character in set, the next occurrence of the literal following e, or
// m.end, whichever comes first.
func (m *matcher) capture(e *expr, p int, set *charSet) int {
	var lit *part
	if e.bound != nil && !e.boundLast {
		lit = e.bound // the last literal is at m.end; no search needed
	}
	k := 0 // length of the longest prefix of lit ending at i
	i := p
	for ; i < m.end; i++ {
		m.steps++
		c := m.s[i]
		if set.has(c) {
			break
		}
		if lit != nil {
			if k = m.advance(lit, k, c); k == len(lit.lit) {
				return i + 1 - k
			}
		}
	}
	// An occurrence of lit may start before i and run past it.
	for j, stop := i, i; lit != nil && k > 0 && j < m.end; j++ {
		m.steps++
		k = m.advance(lit, k, m.s[j])
		start := j + 1 - k
		if start >= stop {
			break
		}
		if k == len(lit.lit) {
			return start
		}
	}
	return i
}

// advance is one Knuth-Morris-Pratt step: the new length of the longest
// prefix of lit that is a suffix of the text read so far. k < len(lit.lit).
func (m *matcher) advance(lit *part, k int, c byte) int {
	for k > 0 && lit.lit[k] != c {
		m.steps++
		k = lit.kmp[k-1]
	}
	if lit.lit[k] == c {
		k++
	}
	return k
}

// set records the value raw captured for v.
func (m *matcher) set(v varspec, raw string) bool {
	m.steps += len(raw)
	val, ok := unescape(raw)
	if !ok || v.prefix > 0 && runeLen(val) > v.prefix {
		return false
	}
	if m.vars == nil {
		m.vars = make(map[string]string, len(m.t.names))
	}
	m.vars[v.name] = val
	return true
}

// prepareMatch computes, for every expression, the literal that follows it
// and the characters that end its values.
func (t *Template) prepareMatch() {
	n := len(t.parts)
	t.tailLit = n > 0 && t.parts[n-1].expr == nil
	var (
		bound     *part
		boundLast bool
		leads     charSet // leading characters of expressions before bound
	)
	for i := n - 1; i >= 0; i-- {
		p := &t.parts[i]
		if p.expr == nil {
			p.kmp = failure(p.lit)
			bound, boundLast, leads = p, i == n-1, charSet{}
			continue
		}
		e := p.expr
		e.bound, e.boundLast = bound, boundLast
		e.stop = newCharSet(e.op.stop).union(leads)
		e.stopLast = e.stop
		if e.op.allowReserved {
			e.stop.add(',')
		}
		if e.op.first != "" {
			leads.add(e.op.first[0])
		}
	}
}

// failure returns the Knuth-Morris-Pratt failure function of s: f[i] is the
// length of the longest proper prefix of s[:i+1] that is also its suffix.
func failure(s string) []int {
	f := make([]int, len(s))
	for i, k := 1, 0; i < len(s); i++ {
		for k > 0 && s[i] != s[k] {
			k = f[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		f[i] = k
	}
	return f
}
