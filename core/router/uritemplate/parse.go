package uritemplate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits enforced by Parse.
const (
	MaxTemplateBytes = 1024 // longest template accepted, in bytes
	MaxVariables     = 32   // most variables in one template
	maxPrefix        = 9999 // largest prefix modifier (RFC 6570 section 2.4.1)
)

// Error is a template syntax error or a violated limit.
type Error struct {
	Template string
	Offset   int // byte offset in Template where the problem was found
	Msg      string
}

func (e *Error) Error() string {
	return fmt.Sprintf("uritemplate: %s at offset %d in %q", e.Msg, e.Offset, e.Template)
}

// Template is a parsed URI template. It is immutable and safe for
// concurrent use.
type Template struct {
	raw   string
	parts []part
	names []string

	matchable bool // no explode modifier anywhere
	tailLit   bool // the last part is a literal
	maxName   int  // longest variable name, in bytes
}

// part is a literal (expr == nil) or an expression.
type part struct {
	lit  string // literal as Expand writes it
	kmp  []int  // failure function of lit, for Match
	expr *expr
}

type expr struct {
	op   *operator
	vars []varspec

	// Match helpers, filled by prepareMatch.
	bound     *part   // next literal after this expression, or nil
	boundLast bool    // bound is the template's last part
	stop      charSet // ends a value
	stopLast  charSet // ends the last value of a + or # expression
	stopName  charSet // ends a parameter name of ; ? &
}

type varspec struct {
	name    string
	prefix  int // 0 when absent
	explode bool
}

// MustParse is like Parse but panics on error. It is meant for templates
// fixed at compile time.
func MustParse(tmpl string) *Template {
	t, err := Parse(tmpl)
	if err != nil {
		panic(err)
	}
	return t
}

// Parse parses an RFC 6570 URI template.
func Parse(tmpl string) (*Template, error) {
	if len(tmpl) > MaxTemplateBytes {
		return nil, &Error{tmpl, MaxTemplateBytes,
			fmt.Sprintf("template is %d bytes, over MaxTemplateBytes (%d)", len(tmpl), MaxTemplateBytes)}
	}
	p := parser{src: tmpl, t: &Template{raw: tmpl, matchable: true}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	p.t.prepareMatch()
	return p.t, nil
}

// String returns the template text as given to Parse.
func (t *Template) String() string { return t.raw }

// Variables returns the variable names in order of appearance.
func (t *Template) Variables() []string {
	return append([]string(nil), t.names...)
}

type parser struct {
	src  string
	pos  int
	t    *Template
	seen map[string]bool
}

func (p *parser) fail(off int, format string, args ...any) error {
	return &Error{p.src, off, fmt.Sprintf(format, args...)}
}

func (p *parser) parse() error {
	for p.pos < len(p.src) {
		if p.src[p.pos] == '{' {
			if err := p.expression(); err != nil {
				return err
			}
			continue
		}
		if err := p.literal(); err != nil {
			return err
		}
	}
	return nil
}

// literal consumes text up to the next '{' and appends it in expanded form.
func (p *parser) literal() error {
	var b strings.Builder
	for p.pos < len(p.src) && p.src[p.pos] != '{' {
		c := p.src[p.pos]
		switch {
		case c == '}':
			return p.fail(p.pos, "unmatched '}'")
		case c == '%':
			if !isPctTriplet(p.src, p.pos) {
				return p.fail(p.pos, "'%%' not followed by two hex digits")
			}
			b.WriteString(p.src[p.pos : p.pos+3])
			p.pos += 3
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(p.src[p.pos:])
			if r == utf8.RuneError && n == 1 {
				return p.fail(p.pos, "invalid UTF-8")
			}
			pctEncode(&b, p.src[p.pos:p.pos+n])
			p.pos += n
		case unreserved.has(c) || reserved.has(c):
			b.WriteByte(c)
			p.pos++
		default:
			return p.fail(p.pos, "character %q not allowed in a literal", c)
		}
	}
	// Adjacent literals cannot occur: an expression always separates them.
	p.t.parts = append(p.t.parts, part{lit: b.String()})
	return nil
}

func (p *parser) expression() error {
	open := p.pos
	end := strings.IndexAny(p.src[open+1:], "{}")
	if end < 0 || p.src[open+1+end] == '{' {
		return p.fail(open, "unclosed expression")
	}
	body := p.src[open+1 : open+1+end]
	p.pos = open + 1 + end + 1
	if body == "" {
		return p.fail(open, "empty expression")
	}
	e := &expr{op: &operators[0]}
	off := open + 1
	if op := operatorFor(body[0]); op != nil {
		e.op = op
		body = body[1:]
		off++
	} else if strings.IndexByte("=,!@|", body[0]) >= 0 {
		return p.fail(off, "operator %q is reserved", body[0])
	}
	for {
		spec, n, err := p.varspec(body, off)
		if err != nil {
			return err
		}
		e.vars = append(e.vars, spec)
		body, off = body[n:], off+n
		if body == "" {
			break
		}
		// varspec stops only at ',' or the end.
		body, off = body[1:], off+1
	}
	p.t.parts = append(p.t.parts, part{expr: e})
	return nil
}

// varspec parses one varspec at the start of s (which begins at offset off)
// and returns it with the number of bytes consumed.
func (p *parser) varspec(s string, off int) (varspec, int, error) {
	i := 0
	for i < len(s) && s[i] != ',' && s[i] != ':' && s[i] != '*' {
		c := s[i]
		switch {
		case isVarchar(c):
			i++
		case c == '%':
			if !isPctTriplet(s, i) {
				return varspec{}, 0, p.fail(off+i, "'%%' not followed by two hex digits in variable name")
			}
			i += 3
		case c == '.':
			if i == 0 || s[i-1] == '.' || i+1 == len(s) || !isVarchar(s[i+1]) && s[i+1] != '%' {
				return varspec{}, 0, p.fail(off+i, "misplaced '.' in variable name")
			}
			i++
		default:
			return varspec{}, 0, p.fail(off+i, "character %q not allowed in a variable name", c)
		}
	}
	if i == 0 {
		return varspec{}, 0, p.fail(off, "empty variable name")
	}
	v := varspec{name: s[:i]}
	if p.seen[v.name] {
		return varspec{}, 0, p.fail(off, "variable %q used twice", v.name)
	}
	if len(p.t.names) == MaxVariables {
		return varspec{}, 0, p.fail(off, "more than MaxVariables (%d) variables", MaxVariables)
	}
	if p.seen == nil {
		p.seen = make(map[string]bool)
	}
	p.seen[v.name] = true
	p.t.names = append(p.t.names, v.name)
	p.t.maxName = max(p.t.maxName, len(v.name))

	if i < len(s) && s[i] == '*' {
		v.explode = true
		p.t.matchable = false
		i++
	} else if i < len(s) && s[i] == ':' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i <= 4 {
			v.prefix = v.prefix*10 + int(s[j]-'0')
			j++
		}
		if j == i+1 || s[i+1] == '0' || j-i > 5 || j < len(s) && s[j] >= '0' && s[j] <= '9' {
			return varspec{}, 0, p.fail(off+i, "prefix modifier must be 1 to %d", maxPrefix)
		}
		i = j
	}
	if i < len(s) && s[i] != ',' {
		return varspec{}, 0, p.fail(off+i, "unexpected %q after variable %q", s[i], v.name)
	}
	return v, i, nil
}

func isVarchar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}
