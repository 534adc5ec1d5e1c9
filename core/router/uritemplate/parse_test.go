package uritemplate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseVariables(t *testing.T) {
	tests := []struct {
		tmpl string
		want []string
	}{
		{"", nil},
		{"plain://literal/only", nil},
		{"test://template/{id}/data", []string{"id"}},
		{"db://{table}{?limit,offset}", []string{"table", "limit", "offset"}},
		{"{+a}{#b}{.c}{/d}{;e}{?f}{&g}", []string{"a", "b", "c", "d", "e", "f", "g"}},
		{"{a.b,c_d,%41x,Z9:9999,list*}", []string{"a.b", "c_d", "%41x", "Z9", "list"}},
		{"{x:1}", []string{"x"}},
	}
	for _, tc := range tests {
		tmpl, err := Parse(tc.tmpl)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.tmpl, err)
			continue
		}
		if got := tmpl.Variables(); !slices.Equal(got, tc.want) {
			t.Errorf("Parse(%q).Variables() = %q, want %q", tc.tmpl, got, tc.want)
		}
		if got := tmpl.String(); got != tc.tmpl {
			t.Errorf("String() = %q, want %q", got, tc.tmpl)
		}
	}
}

func TestVariablesReturnsCopy(t *testing.T) {
	tmpl := MustParse("{a}{b}")
	tmpl.Variables()[0] = "zzz"
	if got := tmpl.Variables()[0]; got != "a" {
		t.Fatalf("Variables()[0] = %q after caller modified its slice", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		tmpl   string
		msg    string
		offset int
	}{
		{"a{b", "unclosed expression", 1},
		{"a{b{c}", "unclosed expression", 1},
		{"a}b", "unmatched '}'", 1},
		{"x{}", "empty expression", 1},
		{"{=x}", "operator '=' is reserved", 1},
		{"{,x}", "operator ',' is reserved", 1},
		{"{!x}", "operator '!' is reserved", 1},
		{"{@x}", "operator '@' is reserved", 1},
		{"{|x}", "operator '|' is reserved", 1},
		{"{$x}", "character '$' not allowed in a variable name", 1},
		{"{+}", "empty variable name", 2},
		{"{a,}", "empty variable name", 3},
		{"{a,,b}", "empty variable name", 3},
		{"{a b}", "character ' ' not allowed", 2},
		{"{a-b}", "character '-' not allowed", 2},
		{"{.a.}", "misplaced '.'", 3},
		{"{a..b}", "misplaced '.'", 2},
		{"{..a}", "misplaced '.'", 2},
		{"{a%4}", "'%' not followed by two hex digits", 2},
		{"{a:}", "prefix modifier must be 1 to 9999", 2},
		{"{a:0}", "prefix modifier must be 1 to 9999", 2},
		{"{a:01}", "prefix modifier must be 1 to 9999", 2},
		{"{a:10000}", "prefix modifier must be 1 to 9999", 2},
		{"{a:x}", "prefix modifier must be 1 to 9999", 2},
		{"{a:3*}", `unexpected '*' after variable "a"`, 4},
		{"{a*:3}", `unexpected ':' after variable "a"`, 3},
		{"{a**}", `unexpected '*' after variable "a"`, 3},
		{"{a}{a}", `variable "a" used twice`, 4},
		{"{a,b,a}", `variable "a" used twice`, 5},
		{"{/var:1,var}", `variable "var" used twice`, 8},
		{"a b{x}", "character ' ' not allowed in a literal", 1},
		{"a\"{x}", "character '\"' not allowed in a literal", 1},
		{"a<{x}", "character '<' not allowed in a literal", 1},
		{"a|{x}", "character '|' not allowed in a literal", 1},
		{"a\x01", "not allowed in a literal", 1},
		{"50%", "'%' not followed by two hex digits", 2},
		{"5%g0", "'%' not followed by two hex digits", 1},
		{"a\xff", "invalid UTF-8", 1},
	}
	for _, tc := range tests {
		_, err := Parse(tc.tmpl)
		var perr *Error
		if !errors.As(err, &perr) {
			t.Errorf("Parse(%q) error = %v, want *Error", tc.tmpl, err)
			continue
		}
		if !strings.Contains(perr.Msg, tc.msg) || perr.Offset != tc.offset || perr.Template != tc.tmpl {
			t.Errorf("Parse(%q) error = %q at %d, want %q at %d", tc.tmpl, perr.Msg, perr.Offset, tc.msg, tc.offset)
		}
	}
}

func TestParseLimits(t *testing.T) {
	long := "x://" + strings.Repeat("a", MaxTemplateBytes-4)
	if _, err := Parse(long); err != nil {
		t.Errorf("template of MaxTemplateBytes: %v", err)
	}
	if _, err := Parse(long + "a"); err == nil || !strings.Contains(err.Error(), "MaxTemplateBytes") {
		t.Errorf("template over MaxTemplateBytes: error = %v", err)
	}

	names := make([]string, MaxVariables+1)
	for i := range names {
		names[i] = fmt.Sprintf("v%d", i)
	}
	if _, err := Parse("{" + strings.Join(names[:MaxVariables], ",") + "}"); err != nil {
		t.Errorf("MaxVariables variables: %v", err)
	}
	if _, err := Parse("{" + strings.Join(names, ",") + "}"); err == nil || !strings.Contains(err.Error(), "MaxVariables") {
		t.Errorf("MaxVariables+1 variables: error = %v", err)
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse of a bad template did not panic")
		}
	}()
	MustParse("{")
}
