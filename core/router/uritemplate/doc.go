// Package uritemplate implements RFC 6570 URI Templates (all four levels) for
// MCP resource templates: [Parse] a template, [Template.Expand] it with
// variable values, and [Template.Match] a concrete URI against it to recover
// the variables, as resources/read needs.
//
// # Syntax
//
// Parse accepts the full RFC 6570 grammar: literals, expressions with the
// operators + # . / ; ? & (or none), several comma-separated variables per
// expression, the prefix modifier :N (1..9999) and the explode modifier *.
// In addition to the RFC it enforces [MaxTemplateBytes] and [MaxVariables]
// and rejects a variable name used twice (so "{/var:1,var}" and similar RFC
// examples are errors here). Literal characters the RFC forbids (controls,
// space, " ' < > \ ^ ` |, a % not starting a triplet, invalid UTF-8) are
// errors too.
//
// # Expansion
//
// Values may be string, []string (a list), []Pair (an ordered associative
// array) or map[string]string (an associative array expanded in key order).
// A missing or nil value, an empty list and an empty array are undefined. A
// prefix modifier on a list or array is an error, as is any other value type.
//
// # Matching
//
// Match inverts expansion for templates without the explode modifier, with
// a single left-to-right pass that is linear in the URI length (plus a term
// bounded by the template size); nothing backtracks. It reports variables as
// percent-decoded strings ('+' is not a space) and fails on malformed
// percent-encoding. A template with any exploded variable never matches: its
// values are lists or arrays, which a map[string]string cannot hold.
//
// Literals must appear exactly as Expand writes them (non-ASCII template
// text in percent-encoded form). Each variable captures a run of characters
// that ends before the first of:
//
//   - a character that cannot occur unencoded in that variable's expansion
//     for that operator (the table below);
//   - the next literal of the template: its first occurrence, or the URI's
//     suffix when that literal ends the template;
//   - the first character of any expression between this one and that
//     literal whose operator writes a leading character (# . / ; ? &).
//
// So captures are lazy: "{name}.txt" matches "a.b.txt" as name "a.b", but
// "{+path}{.ext}" splits "a.b/c.d" at the first dot and fails. When a
// position could begin both the next literal and another segment of an
// expression, the literal wins.
//
//	{var}      values separated by ","; a value stops at / ? # ,
//	{+var}     values separated by ","; the last value runs on (may hold / ? # ,)
//	{#var}     like {+var} after a "#"
//	{.var}     one ".value" per variable; a value stops at . / ? # ,
//	{/var}     one "/value" per variable; a value stops at / ? # ,
//	{;var}     ";name" or ";name=value" in any order; a value stops at ; / ? # ,
//	{?var}     "?name=value" then "&name=value" in any order; a value stops at & #
//	{&var}     "&name=value" in any order; a value stops at & #
//
// Every variable is optional, as in expansion. With several variables in one
// unnamed expression ("{x,y}", "{+x,y}") values are assigned in order, so
// "7" gives x only. An empty "{var}" or "{+var}" leaves the variable
// undefined; after a leading character ("#", ".", "/") an empty value is
// the empty string. For the named operators a parameter whose name is not a
// variable of the expression ends it; the rest of the URI must then match
// the rest of the template, so unknown query parameters make Match fail. A
// parameter given twice, or a value longer than its prefix modifier allows,
// also makes Match fail.
package uritemplate
