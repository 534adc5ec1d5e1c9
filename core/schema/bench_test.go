package schema

import (
	"testing"
)

var echoInstance = map[string]any{"text": "hello, world"}

func echoValidator(b *testing.B) *Validator {
	s, err := ForInput[echoArgs]()
	if err != nil {
		b.Fatal(err)
	}
	v := mustCompile(b, string(s))
	if v.fast == nil {
		b.Fatal("echo schema is not on the fast path")
	}
	return v
}

// BenchmarkValidateEcho is the hot path: echo{text} arguments, already decoded.
func BenchmarkValidateEcho(b *testing.B) {
	v := echoValidator(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(echoInstance); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateEchoLibrary is the same check done by the library alone.
func BenchmarkValidateEchoLibrary(b *testing.B) {
	v := echoValidator(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.validateLib(echoInstance); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateEchoInvalid(b *testing.B) {
	v := echoValidator(b)
	bad := map[string]any{"text": 1.0}
	b.ReportAllocs()
	for b.Loop() {
		if v.Validate(bad) == nil {
			b.Fatal("want error")
		}
	}
}

func BenchmarkValidateMixed(b *testing.B) {
	schema := `{"type":"object","properties":{
		"query":{"type":"string","minLength":1,"maxLength":200},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"mode":{"enum":["fast","exact"]},
		"tags":{"type":"array","items":{"type":"string"},"maxItems":5}},
		"required":["query"],"additionalProperties":false}`
	instance := map[string]any{"query": "go schema", "limit": 10.0, "mode": "fast", "tags": []any{"a", "b"}}
	v := mustCompile(b, schema)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := v.Validate(instance); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := v.validateLib(instance); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkValidateJSONEcho(b *testing.B) {
	v := echoValidator(b)
	raw := []byte(`{"text":"hello, world"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.ValidateJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkForType(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := For[containers](); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmitsEcho is the byte walk over echo{text} arguments, which
// spares the call the decoding that BenchmarkValidateEcho starts from.
func BenchmarkAdmitsEcho(b *testing.B) {
	v := echoValidator(b)
	raw := []byte(`{"text":"hello, world"}`)
	b.ReportAllocs()
	for b.Loop() {
		if !v.Admits(raw) {
			b.Fatal("not admitted")
		}
	}
}
