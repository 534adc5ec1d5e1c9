package schema

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCauses is how many causes a ValidationError keeps.
const maxCauses = 3

// ValidationError reports why an instance does not match its schema. Its
// messages name the rule and the location, never the value.
type ValidationError struct {
	Causes  []Cause // at most three: missing arguments first, then by location
	Omitted int     // further causes not kept
}

// Cause is one broken rule.
type Cause struct {
	// Location is the JSON Pointer of the argument concerned, "" for the
	// arguments as a whole; for a missing or unexpected argument it points at
	// that argument.
	Location string
	// Keyword is the schema keyword that failed ("type", "minimum", …).
	Keyword string
	// Message is the full sentence, e.g. `argument "/count": must be >= 1 (minimum)`.
	Message string
}

func (e *ValidationError) Error() string {
	var sb strings.Builder
	for i, c := range e.Causes {
		if i > 0 {
			sb.WriteString("; ")
		}
		sb.WriteString(c.Message)
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&sb, "; and %d more", e.Omitted)
	}
	return sb.String()
}

// issues gathers causes from either validation path and builds the one
// error both return, so that their messages agree.
type issues []Cause

func (is issues) err() error {
	if len(is) == 0 {
		return nil
	}
	if slices.ContainsFunc(is, isRange) {
		is = slices.DeleteFunc(is, func(c Cause) bool { return !isRange(c) })
	}
	// Missing arguments first: they are what a caller most needs to fix.
	slices.SortFunc(is, func(a, b Cause) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Location, b.Location), cmp.Compare(a.Message, b.Message))
	})
	is = slices.CompactFunc(is, func(a, b Cause) bool { return a.Message == b.Message })
	e := &ValidationError{Causes: is}
	if len(is) > maxCauses {
		e.Causes, e.Omitted = slices.Clip(is[:maxCauses]), len(is)-maxCauses
	}
	return e
}

func isRange(c Cause) bool { return c.Keyword == "number" }

func rank(c Cause) int {
	if c.Keyword == "required" {
		return 0
	}
	return 1
}

// add records that the value at loc breaks keyword, explained by text.
func (is *issues) add(loc, keyword, text string) {
	*is = append(*is, Cause{Location: loc, Keyword: keyword, Message: at(loc) + ": " + text + " (" + keyword + ")"})
}

func (is *issues) required(objLoc, name string) {
	msg := "missing required argument " + quote(name)
	if objLoc != "" {
		msg += " in " + quote(objLoc)
	}
	*is = append(*is, Cause{Location: objLoc + "/" + escapeToken(name), Keyword: "required", Message: msg})
}

func (is *issues) additional(objLoc, name string) {
	msg := "unexpected argument " + quote(name)
	if objLoc != "" {
		msg += " in " + quote(objLoc)
	}
	*is = append(*is, Cause{Location: objLoc + "/" + escapeToken(name), Keyword: "additionalProperties", Message: msg + " (additionalProperties)"})
}

// typeOrder is the order type names are listed in messages.
var typeOrder = []string{"null", "boolean", "integer", "number", "string", "array", "object"}

func (is *issues) wrongType(loc string, want []string) {
	sorted := slices.Clone(want)
	slices.SortFunc(sorted, func(a, b string) int {
		return cmp.Compare(slices.Index(typeOrder, a), slices.Index(typeOrder, b))
	})
	is.add(loc, "type", "must be "+strings.Join(sorted, " or "))
}

func (is *issues) bound(loc, keyword string, want *big.Rat) {
	op := map[string]string{"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[keyword]
	is.add(loc, keyword, "must be "+op+" "+formatRat(want))
}

func (is *issues) length(loc, keyword string, n int) {
	word := "at least"
	if keyword == "maxLength" {
		word = "at most"
	}
	is.add(loc, keyword, "must be "+word+" "+strconv.Itoa(n)+" characters long")
}

func (is *issues) count(loc, keyword, noun string, n int) {
	word := "at least"
	if strings.HasPrefix(keyword, "max") {
		word = "at most"
	}
	is.add(loc, keyword, "must have "+word+" "+strconv.Itoa(n)+" "+noun)
}

func (is *issues) enum(loc string)  { is.add(loc, "enum", "must be one of the allowed values") }
func (is *issues) konst(loc string) { is.add(loc, "const", "must be the allowed constant value") }
func (is *issues) invalid(loc string) {
	is.add(loc, "type", "is not a JSON value")
}
func (is *issues) outOfRange(loc string)  { is.add(loc, "number", "is out of range") }
func (is *issues) falseSchema(loc string) { is.add(loc, "false", "is not allowed") }

// formatRat writes a schema number: integers exactly, others as decimals.
func formatRat(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func at(loc string) string {
	if loc == "" {
		return "arguments"
	}
	return "argument " + quote(loc)
}

// maxQuoted bounds a location or name in a message; keys come from the caller.
const maxQuoted = 128

func quote(s string) string {
	if len(s) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// escapeToken escapes one JSON Pointer token.
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapeToken(t))
	}
	return sb.String()
}
