package uritemplate

import (
	"strings"
	"testing"
)

// rfcVars are the example variables of RFC 6570 section 3.2.
var rfcVars = map[string]any{
	"count":      []string{"one", "two", "three"},
	"dom":        []string{"example", "com"},
	"dub":        "me/too",
	"hello":      "Hello World!",
	"half":       "50%",
	"var":        "value",
	"who":        "fred",
	"base":       "http://example.com/home/",
	"path":       "/foo/bar",
	"list":       []string{"red", "green", "blue"},
	"keys":       []Pair{{"semi", ";"}, {"dot", "."}, {"comma", ","}},
	"v":          "6",
	"x":          "1024",
	"y":          "768",
	"empty":      "",
	"empty_keys": []Pair{},
	"undef":      nil,
}

// rfcExamples are the examples of RFC 6570 sections 3.2.2 to 3.2.9, less
// those that repeat a variable name, which Parse rejects.
var rfcExamples = []struct{ tmpl, want string }{
	// 3.2.2 simple string expansion
	{"{var}", "value"},
	{"{hello}", "Hello%20World%21"},
	{"{half}", "50%25"},
	{"O{empty}X", "OX"},
	{"O{undef}X", "OX"},
	{"{x,y}", "1024,768"},
	{"{x,hello,y}", "1024,Hello%20World%21,768"},
	{"?{x,empty}", "?1024,"},
	{"?{x,undef}", "?1024"},
	{"?{undef,y}", "?768"},
	{"{var:3}", "val"},
	{"{var:30}", "value"},
	{"{list}", "red,green,blue"},
	{"{list*}", "red,green,blue"},
	{"{keys}", "semi,%3B,dot,.,comma,%2C"},
	{"{keys*}", "semi=%3B,dot=.,comma=%2C"},
	// 3.2.3 reserved expansion
	{"{+var}", "value"},
	{"{+hello}", "Hello%20World!"},
	{"{+half}", "50%25"},
	{"{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"},
	{"{+base}index", "http://example.com/home/index"},
	{"O{+empty}X", "OX"},
	{"O{+undef}X", "OX"},
	{"{+path}/here", "/foo/bar/here"},
	{"here?ref={+path}", "here?ref=/foo/bar"},
	{"up{+path}{var}/here", "up/foo/barvalue/here"},
	{"{+x,hello,y}", "1024,Hello%20World!,768"},
	{"{+path,x}/here", "/foo/bar,1024/here"},
	{"{+path:6}/here", "/foo/b/here"},
	{"{+list}", "red,green,blue"},
	{"{+list*}", "red,green,blue"},
	{"{+keys}", "semi,;,dot,.,comma,,"},
	{"{+keys*}", "semi=;,dot=.,comma=,"},
	// 3.2.4 fragment expansion
	{"{#var}", "#value"},
	{"{#hello}", "#Hello%20World!"},
	{"{#half}", "#50%25"},
	{"foo{#empty}", "foo#"},
	{"foo{#undef}", "foo"},
	{"{#x,hello,y}", "#1024,Hello%20World!,768"},
	{"{#path,x}/here", "#/foo/bar,1024/here"},
	{"{#path:6}/here", "#/foo/b/here"},
	{"{#list}", "#red,green,blue"},
	{"{#list*}", "#red,green,blue"},
	{"{#keys}", "#semi,;,dot,.,comma,,"},
	{"{#keys*}", "#semi=;,dot=.,comma=,"},
	// 3.2.5 label expansion with dot-prefix
	{"{.who}", ".fred"},
	{"{.half,who}", ".50%25.fred"},
	{"www{.dom*}", "www.example.com"},
	{"X{.var}", "X.value"},
	{"X{.empty}", "X."},
	{"X{.undef}", "X"},
	{"X{.var:3}", "X.val"},
	{"X{.list}", "X.red,green,blue"},
	{"X{.list*}", "X.red.green.blue"},
	{"X{.keys}", "X.semi,%3B,dot,.,comma,%2C"},
	{"X{.keys*}", "X.semi=%3B.dot=..comma=%2C"},
	{"X{.empty_keys}", "X"},
	{"X{.empty_keys*}", "X"},
	// 3.2.6 path segment expansion
	{"{/who}", "/fred"},
	{"{/half,who}", "/50%25/fred"},
	{"{/who,dub}", "/fred/me%2Ftoo"},
	{"{/var}", "/value"},
	{"{/var,empty}", "/value/"},
	{"{/var,undef}", "/value"},
	{"{/var,x}/here", "/value/1024/here"},
	{"{/list}", "/red,green,blue"},
	{"{/list*}", "/red/green/blue"},
	{"{/list*,path:4}", "/red/green/blue/%2Ffoo"},
	{"{/keys}", "/semi,%3B,dot,.,comma,%2C"},
	{"{/keys*}", "/semi=%3B/dot=./comma=%2C"},
	// 3.2.7 path-style parameter expansion
	{"{;who}", ";who=fred"},
	{"{;half}", ";half=50%25"},
	{"{;empty}", ";empty"},
	{"{;v,empty,who}", ";v=6;empty;who=fred"},
	{"{;v,bar,who}", ";v=6;who=fred"},
	{"{;x,y}", ";x=1024;y=768"},
	{"{;x,y,empty}", ";x=1024;y=768;empty"},
	{"{;x,y,undef}", ";x=1024;y=768"},
	{"{;hello:5}", ";hello=Hello"},
	{"{;list}", ";list=red,green,blue"},
	{"{;list*}", ";list=red;list=green;list=blue"},
	{"{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"},
	{"{;keys*}", ";semi=%3B;dot=.;comma=%2C"},
	// 3.2.8 form-style query expansion
	{"{?who}", "?who=fred"},
	{"{?half}", "?half=50%25"},
	{"{?x,y}", "?x=1024&y=768"},
	{"{?x,y,empty}", "?x=1024&y=768&empty="},
	{"{?x,y,undef}", "?x=1024&y=768"},
	{"{?var:3}", "?var=val"},
	{"{?list}", "?list=red,green,blue"},
	{"{?list*}", "?list=red&list=green&list=blue"},
	{"{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"},
	{"{?keys*}", "?semi=%3B&dot=.&comma=%2C"},
	// 3.2.9 form-style query continuation
	{"{&who}", "&who=fred"},
	{"{&half}", "&half=50%25"},
	{"?fixed=yes{&x}", "?fixed=yes&x=1024"},
	{"{&x,y,empty}", "&x=1024&y=768&empty="},
	{"{&var:3}", "&var=val"},
	{"{&list}", "&list=red,green,blue"},
	{"{&list*}", "&list=red&list=green&list=blue"},
	{"{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"},
	{"{&keys*}", "&semi=%3B&dot=.&comma=%2C"},
}

func TestExpandRFCExamples(t *testing.T) {
	for _, tc := range rfcExamples {
		tmpl, err := Parse(tc.tmpl)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.tmpl, err)
			continue
		}
		got, err := tmpl.Expand(rfcVars)
		if err != nil {
			t.Errorf("Expand(%q): %v", tc.tmpl, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Expand(%q) = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		tmpl string
		vars map[string]any
		want string
	}{
		{"test://template/{id}/data", map[string]any{"id": "42"}, "test://template/42/data"},
		{"file:///{+path}", map[string]any{"path": "a b/c.txt"}, "file:///a%20b/c.txt"},
		{"db://{table}{?limit,offset}", map[string]any{"table": "t", "offset": "5"}, "db://t?offset=5"},
		// A map expands in key order.
		{"{?m*}", map[string]any{"m": map[string]string{"b": "2", "a": "1"}}, "?a=1&b=2"},
		{"{m}", map[string]any{"m": map[string]string{"b": "2", "a": "1"}}, "a,1,b,2"},
		// Prefixes count characters, not bytes; values are encoded as UTF-8.
		{"{v:2}", map[string]any{"v": "ñandú"}, "%C3%B1a"},
		{"{+v:3}", map[string]any{"v": "%20x"}, "%20"},
		{"{+v:2}", map[string]any{"v": "%20x"}, "%252"},
		{"{+v}", map[string]any{"v": "%2F%zz"}, "%2F%25zz"},
		// Literals outside the URI character set are percent-encoded.
		{"café/{x}", map[string]any{"x": "é"}, "caf%C3%A9/%C3%A9"},
		{"%7e{x}", nil, "%7e"},
		// Explode with named operators and empty members.
		{"{;l*}", map[string]any{"l": []string{"a", ""}}, ";l=a;l"},
		{"{?l*}", map[string]any{"l": []string{"a", ""}}, "?l=a&l="},
		{"{;p*}", map[string]any{"p": []Pair{{"k", ""}}}, ";k"},
		{"{/p*}", map[string]any{"p": []Pair{{"k", ""}}}, "/k="},
		// Empty lists and nil values are undefined; unknown names ignored.
		{"a{/l}{?q}", map[string]any{"l": []string{}, "q": nil, "other": 1}, "a"},
		{"{x}", map[string]any{"x": []string(nil)}, ""},
	}
	for _, tc := range tests {
		got, err := MustParse(tc.tmpl).Expand(tc.vars)
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q, %v) = %q, %v; want %q", tc.tmpl, tc.vars, got, err, tc.want)
		}
	}
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		tmpl string
		vars map[string]any
		want string
	}{
		{"{x}", map[string]any{"x": 7}, "unsupported value type int"},
		{"{x:2}", map[string]any{"x": []string{"a"}}, "prefix modifier"},
		{"{x:2}", map[string]any{"x": []Pair{{"a", "b"}}}, "prefix modifier"},
		{"{x:2}", map[string]any{"x": map[string]string{"a": "b"}}, "prefix modifier"},
	}
	for _, tc := range tests {
		_, err := MustParse(tc.tmpl).Expand(tc.vars)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Expand(%q, %v) error = %v, want it to contain %q", tc.tmpl, tc.vars, err, tc.want)
		}
	}
}
