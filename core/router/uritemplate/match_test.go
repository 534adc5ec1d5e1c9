package uritemplate

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	type vars = map[string]string
	tests := []struct {
		tmpl, uri string
		want      vars // nil: no match
	}{
		// Typical MCP resource templates.
		{"test://template/{id}/data", "test://template/42/data", vars{"id": "42"}},
		{"test://template/{id}/data", "test://template/a%2Fb%20c/data", vars{"id": "a/b c"}},
		{"test://template/{id}/data", "test://template//data", vars{}},
		{"test://template/{id}/data", "test://template/a/b/data", nil},
		{"test://template/{id}/data", "test://template/a,b/data", nil},
		{"test://template/{id}/data", "test://template/42/datax", nil},
		{"test://template/{id}/data", "test://other/42/data", nil},
		{"test://template/{id}/data", "test://template/42", nil},
		{"file:///{+path}", "file:///a/b/c.txt", vars{"path": "a/b/c.txt"}},
		{"file:///{+path}", "file:///a%20b,c", vars{"path": "a b,c"}},
		{"file:///{+path}", "file:///a?x=1#f", vars{"path": "a?x=1#f"}},
		{"file:///{+path}", "file:///", vars{}},
		{"file:///{+path}", "file://", nil},
		{"db://{table}{?limit,offset}", "db://users", vars{"table": "users"}},
		{"db://{table}{?limit,offset}", "db://users?limit=10", vars{"table": "users", "limit": "10"}},
		{"db://{table}{?limit,offset}", "db://users?offset=3&limit=10", vars{"table": "users", "limit": "10", "offset": "3"}},
		{"db://{table}{?limit,offset}", "db://users?limit", vars{"table": "users", "limit": ""}},
		{"db://{table}{?limit,offset}", "db://users?limit=&offset=a%26b", vars{"table": "users", "limit": "", "offset": "a&b"}},
		{"db://{table}{?limit,offset}", "db://users?sort=x", nil},
		{"db://{table}{?limit,offset}", "db://users?limit=1&sort=x", nil},
		{"db://{table}{?limit,offset}", "db://users?limit=1&limit=2", nil},
		// "&" and "=" are legal in a path segment, so {table} takes them.
		{"db://{table}{?limit,offset}", "db://users&limit=1", vars{"table": "users&limit=1"}},
		{"db://{table}{?limit,offset}", "db://a/b", nil},

		// Simple expressions.
		{"{x}", "", vars{}},
		{"{x}", "a%2Cb", vars{"x": "a,b"}},
		{"{x}", "caf\u00e9 \"q\"", vars{"x": "caf\u00e9 \"q\""}}, // unencoded input tolerated
		{"{x}", "%zz", nil},
		{"{x}", "ab%4", nil},
		{"{x}", "a+b", vars{"x": "a+b"}},
		{"{x,y}", "1024,768", vars{"x": "1024", "y": "768"}},
		{"{x,y}", "1024", vars{"x": "1024"}},
		{"{x,y}", ",768", vars{"x": "", "y": "768"}},
		{"{x,y}", "1,2,3", nil},
		{"{name}.txt", "a.b.txt", vars{"name": "a.b"}},
		{"{name}.txt", "a.txt.txt", vars{"name": "a.txt"}},
		{"{a}.{b}", "x.y.z", vars{"a": "x", "b": "y.z"}},
		{"{a}-{b}-end", "x-y-z-end", vars{"a": "x", "b": "y-z"}},
		{"a{x}a", "a", nil},
		{"a{x}a", "aa", vars{}},
		{"{a}{b}", "xy", vars{"a": "xy"}},
		{"{x}{.y}", "a.b", vars{"x": "a", "y": "b"}},
		{"{x}{?q}.json", "a.json", vars{"x": "a"}},
		{"{x}{?q}.json", "a?q=1.json", vars{"x": "a", "q": "1"}},
		{"{x:3}", "abc", vars{"x": "abc"}},
		{"{x:3}", "abcd", nil},
		{"{x:2}", "%C3%B1a", vars{"x": "\u00f1a"}},
		// Literals match in their expanded (percent-encoded) form.
		{"caf\u00e9/{x}", "caf%C3%A9/y", vars{"x": "y"}},
		{"caf\u00e9/{x}", "caf\u00e9/y", nil},
		// A literal that could also be the start of a segment wins.
		{"x/{a}/y/{b}", "x/1/y/2", vars{"a": "1", "b": "2"}},
		{"{a}ab{b}", "xaab", vars{"a": "xa"}},
		{"{a}aab{b}", "xaaab", vars{"a": "xa"}},
		{"{a}a/b{b}", "xa/b", vars{"a": "x"}},
		{"{a}a/b{b}", "xa/c", nil},

		// Reserved and fragment expansion.
		{"{+x,y}", "a,b,c", vars{"x": "a", "y": "b,c"}},
		{"{+x,y}", ",b", vars{"x": "", "y": "b"}},
		{"{+base}{#f}", "http://x/y#z", vars{"base": "http://x/y", "f": "z"}},
		{"{+path}/here", "/foo/bar/here", vars{"path": "/foo/bar"}},
		{"{#frag}", "", vars{}},
		{"{#frag}", "#", vars{"frag": ""}},
		{"{#frag}", "#a/b?c", vars{"frag": "a/b?c"}},
		{"x{#a,b}", "x#1,2", vars{"a": "1", "b": "2"}},
		{"x{#a,b}", "x1", nil},

		// Label and path segments.
		{"{.ext}", ".txt", vars{"ext": "txt"}},
		{"{.ext}", ".tar.gz", nil},
		{"X{.a,b}", "X.1.2", vars{"a": "1", "b": "2"}},
		{"X{.a,b}", "X.", vars{"a": ""}},
		{"X{.a,b}", "X", vars{}},
		{"{/a,b}", "/x/y", vars{"a": "x", "b": "y"}},
		{"{/a,b}", "/x", vars{"a": "x"}},
		{"{/a,b}", "/x/y/z", nil},
		{"{/a,b}", "/x%2Fy", vars{"a": "x/y"}},
		{"{/a}{/b}", "/x/y", vars{"a": "x", "b": "y"}},
		{"{/a}/x", "/x", vars{}},
		{"{/a}/x", "/y/x", vars{"a": "y"}},
		{"users{/id}{?fields}", "users/7?fields=a,b", vars{"id": "7", "fields": "a,b"}},

		// Path-style parameters and queries.
		{"{;x,y}", ";x=1;y=2", vars{"x": "1", "y": "2"}},
		{"{;x,y}", ";y=2;x=1", vars{"x": "1", "y": "2"}},
		{"{;x,y}", ";x;y=", vars{"x": "", "y": ""}},
		{"{;x,y}", ";z=1", nil},
		{"{;x,y}", ";x=1;x=2", nil},
		{"{;x}{;xy}", ";xy=1;x=2", nil},
		{"{;x}{;xy}", ";x=2;xy=1", vars{"x": "2", "xy": "1"}},
		{"{;x}/rest", ";x=1/rest", vars{"x": "1"}},
		{"{?a}{&b}", "?a=1&b=2", vars{"a": "1", "b": "2"}},
		{"{?a}{&b}", "&b=2", vars{"b": "2"}},
		{"{?a}{&b}", "?b=2", nil},
		{"{?a.b,c%20d}", "?c%20d=1&a.b=2", vars{"a.b": "2", "c%20d": "1"}},
		{"?fixed=yes{&x}", "?fixed=yes&x=1024", vars{"x": "1024"}},
		{"?fixed=yes{&x}", "?fixed=yes", vars{}},
		{"{?q}#top", "?q=a#top", vars{"q": "a"}},
		{"{?q:2}", "?q=abc", nil},

		// Exploded variables are never matched.
		{"{/list*}", "/red/green", nil},
		{"{?keys*}", "?a=1", nil},
		{"{x}{?keys*}", "a", nil},
	}
	for _, tc := range tests {
		got, ok := MustParse(tc.tmpl).Match(tc.uri)
		if tc.want == nil {
			if ok {
				t.Errorf("Match(%q, %q) = %q, want no match", tc.tmpl, tc.uri, got)
			}
			continue
		}
		if !ok || !maps.Equal(got, tc.want) {
			t.Errorf("Match(%q, %q) = %q, %v; want %q", tc.tmpl, tc.uri, got, ok, tc.want)
		}
	}
}

// TestMatchRFCExamples matches the expansions of the RFC 6570 examples.
// Where every variable is a string, Match must find values that expand to
// the same URI. List and array values need not match (if they do, the
// value is the raw joined string, as in "?list=red,green,blue").
func TestMatchRFCExamples(t *testing.T) {
	for _, tc := range rfcExamples {
		tmpl := MustParse(tc.tmpl)
		if !tmpl.matchable {
			continue
		}
		scalar := true
		for _, name := range tmpl.Variables() {
			switch rfcVars[name].(type) {
			case string, nil:
			default:
				scalar = false
			}
		}
		got, ok := tmpl.Match(tc.want)
		if !scalar {
			continue
		}
		if !ok {
			t.Errorf("Match(%q, %q) failed", tc.tmpl, tc.want)
			continue
		}
		vars := make(map[string]any, len(got))
		for k, v := range got {
			vars[k] = v
		}
		if again, err := tmpl.Expand(vars); err != nil || again != tc.want {
			t.Errorf("Match(%q, %q) = %q, which expands to %q, %v", tc.tmpl, tc.want, got, again, err)
		}
	}
}

func TestMatchResultIsFresh(t *testing.T) {
	tmpl := MustParse("x")
	a, _ := tmpl.Match("x")
	a["k"] = "v"
	if b, _ := tmpl.Match("x"); len(b) != 0 {
		t.Fatalf("second Match returned %v", b)
	}
}

// TestMatchLinear checks the matcher's own step count against adversarial
// inputs of 1 MiB: every character is looked at a bounded number of times.
func TestMatchLinear(t *testing.T) {
	const n = 1 << 20
	names := func(format string, k int) string {
		s := make([]string, k)
		for i := range s {
			s[i] = fmt.Sprintf(format, i)
		}
		return strings.Join(s, "")
	}
	long := strings.Repeat("x", n/MaxVariables)
	// pairs joins MaxVariables copies of "<prefix(i)><long>".
	pairs := func(prefix func(int) string, sep string) string {
		s := make([]string, MaxVariables)
		for i := range s {
			s[i] = prefix(i) + long
		}
		return strings.Join(s, sep)
	}
	named := func(format string) func(int) string {
		return func(i int) string { return fmt.Sprintf(format, i) }
	}
	slash := func(int) string { return "/" }
	list := strings.TrimSuffix(names("v%d,", MaxVariables), ",")
	tests := []struct{ name, tmpl, uri string }{
		// Naive substring search would be quadratic on these.
		{"kmp worst case", names("{+v%d}aaaaaaaaaaaaaaab", MaxVariables), strings.Repeat("a", n) + "aaaaaaaaaaaaaaab"},
		{"kmp near misses", names("{v%d}abababababac", MaxVariables), strings.Repeat("ab", n/2) + "abababababac"},
		{"long tail literal", names("{+v%d}", MaxVariables) + strings.Repeat("a", 800) + "b", strings.Repeat("a", n) + "b"},
		// Literal containing a value stop: occurrences that straddle it.
		{"straddling literal", names("{v%d}aa/b", MaxVariables), pairs(func(int) string { return "" }, "aa/b") + "aa/b"},
		{"long segments", names("{/v%d}", MaxVariables), pairs(slash, "")},
		{"params", names("{;v%d}", MaxVariables), pairs(named(";v%d="), "")},
		{"query", "q:{?" + list + "}", "q:?" + pairs(named("v%d="), "&")},
		{"unknown params", names("{;v%d}", MaxVariables), ";" + strings.Repeat("v1", n/2)},
		{"many commas", "{" + list + "}", strings.Repeat(",", n)},
		{"successful", "x://" + names("{v%d}/", MaxVariables-1) + "{+rest}", "x://" + strings.Repeat(strings.Repeat("y", 1000)+"/", n/1001)},
	}
	for _, tc := range tests {
		tmpl := MustParse(tc.tmpl)
		if len(tmpl.Variables()) != MaxVariables {
			t.Fatalf("%s: %d variables", tc.name, len(tmpl.Variables()))
		}
		m := matcher{t: tmpl, s: tc.uri}
		ok := m.run()
		t.Logf("%s: ok=%v steps=%d bytes=%d", tc.name, ok, m.steps, len(tc.uri))
		if limit := 4*len(tc.uri) + 64*MaxTemplateBytes; m.steps > limit {
			t.Errorf("%s: %d steps for %d bytes, over %d", tc.name, m.steps, len(tc.uri), limit)
		}
	}
}

func BenchmarkMatchLong(b *testing.B) {
	var tmpl strings.Builder
	tmpl.WriteString("x://")
	for i := range MaxVariables - 1 {
		fmt.Fprintf(&tmpl, "{v%d}/", i)
	}
	tmpl.WriteString("{+rest}")
	t := MustParse(tmpl.String())
	seg := strings.Repeat("y", 1<<20/MaxVariables-1)
	uri := "x://" + strings.Repeat(seg+"/", MaxVariables)
	b.SetBytes(int64(len(uri)))
	for b.Loop() {
		if _, ok := t.Match(uri); !ok {
			b.Fatal("no match")
		}
	}
}
