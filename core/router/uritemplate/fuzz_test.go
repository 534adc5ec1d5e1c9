package uritemplate

import (
	"maps"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"",
	"test://template/{id}/data",
	"file:///{+path}",
	"db://{table}{?limit,offset}",
	"{a}.{b}",
	"x{#a,b}",
	"{/a,b}{.c}{;d}{?e}{&f}",
	"{var:3}{list*}",
	"a%20b{x}c",
	"caf\u00e9/{x}",
	"{a.b,%41}",
	"{",
	"}",
	"{a,a}",
}

// FuzzParse checks that Parse never panics and, for templates Parse
// accepts, that Expand and Match never panic. For templates made of simple
// {var} expressions separated by literals, Match must recover the values
// Expand was given.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := Parse(s)
		if err != nil {
			return
		}
		if tmpl.String() != s {
			t.Fatalf("String() = %q, want %q", tmpl.String(), s)
		}
		// A value character that no literal contains, so values cannot be
		// confused with literals.
		var lits strings.Builder
		for _, p := range tmpl.parts {
			lits.WriteString(p.lit)
		}
		c := strings.IndexFunc("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~", func(r rune) bool {
			return !strings.ContainsRune(lits.String(), r)
		})
		vars := map[string]any{}
		want := map[string]string{}
		for i, name := range tmpl.Variables() {
			v := strings.Repeat(string("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~"[max(c, 0)]), i%3+1)
			vars[name], want[name] = v, v
		}
		uri, err := tmpl.Expand(vars)
		if err != nil {
			t.Fatalf("Expand(%q): %v", s, err)
		}
		got, ok := tmpl.Match(uri)
		if c < 0 || !simple(tmpl) {
			return
		}
		if !ok || !maps.Equal(got, want) {
			t.Fatalf("Match(%q, %q) = %q, %v; want %q", s, uri, got, ok, want)
		}
	})
}

// simple reports whether every expression of t is a lone {var} and no two
// expressions are adjacent.
func simple(t *Template) bool {
	for i, p := range t.parts {
		if p.expr == nil {
			continue
		}
		v := p.expr.vars
		if p.expr.op.char != 0 || len(v) != 1 || v[0].prefix != 0 || v[0].explode {
			return false
		}
		if i > 0 && t.parts[i-1].expr != nil {
			return false
		}
	}
	return true
}

// FuzzMatch checks that Match never panics, stays within its linear step
// bound and returns only what the template allows.
func FuzzMatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "test://template/42/data")
		f.Add(s, "db://users?offset=3&limit=10")
		f.Add(s, "a.b/c%2Fd;e=1?x=%zz#f")
	}
	f.Fuzz(func(t *testing.T, tmplText, uri string) {
		tmpl, err := Parse(tmplText)
		if err != nil {
			return
		}
		m := matcher{t: tmpl, s: uri}
		m.run()
		if limit := 4*len(uri) + 64*MaxTemplateBytes; m.steps > limit {
			t.Fatalf("Match(%q, %q): %d steps, over %d", tmplText, uri, m.steps, limit)
		}
		got, ok := tmpl.Match(uri)
		if !ok {
			return
		}
		if !tmpl.matchable {
			t.Fatalf("Match(%q, %q) matched a template with explode", tmplText, uri)
		}
		for _, p := range tmpl.parts {
			if p.expr == nil {
				continue
			}
			for _, v := range p.expr.vars {
				val, ok := got[v.name]
				if ok && v.prefix > 0 && utf8.RuneCountInString(val) > v.prefix {
					t.Fatalf("Match(%q, %q): %s = %q, longer than its prefix", tmplText, uri, v.name, val)
				}
				delete(got, v.name)
			}
		}
		if len(got) != 0 {
			t.Fatalf("Match(%q, %q) returned unknown variables %q", tmplText, uri, got)
		}
	})
}
