package schema

import (
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo, verbatim"`
}

type scalars struct {
	S   string
	B   bool   `json:"b"`
	I   int    `json:"i"`
	I8  int8   `json:"i8"`
	U   uint   `json:"u"`
	U64 uint64 `json:"u64"`
	F   float64
	F32 float32 `json:"f32,omitempty"`
}

type tags struct {
	Skipped  string `json:"-"`
	Dash     string `json:"-,"`
	Opt      string `json:"opt,omitempty"`
	Zero     int    `json:"zero,omitzero"`
	Quoted   int    `json:"quoted,string"`
	unexport string
	Plain    string
}

type containers struct {
	List  []string          `json:"list"`
	Fixed [2]int            `json:"fixed"`
	Bytes []byte            `json:"bytes"`
	Map   map[string]bool   `json:"map"`
	Ptr   *int              `json:"ptr,omitempty"`
	Req   *string           `json:"req"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
	When  time.Time         `json:"when"`
	IP    net.IP            `json:"ip"`
	Grid  [][]float64       `json:"grid"`
	Named map[mode][]uint16 `json:"named"`
}

type mode string

type Base struct {
	ID   string `json:"id"`
	Note string `json:"note,omitempty"`
}

type inner struct {
	Deep int `json:"deep"`
}

type withEmbedded struct {
	Base
	*inner
	Name string `json:"name"`
	Note string `json:"note"` // shallower: wins over Base.Note
}

type nested struct {
	Opts struct {
		Level int `json:"level" jsonschema:"how hard"`
	} `json:"opts"`
	Items []inner `json:"items"`
}

type ambiguousA struct{ X int }
type ambiguousB struct{ X int }
type taggedA struct {
	X int `json:"x"`
}
type taggedB struct{ X int }

type ambiguous struct {
	ambiguousA
	ambiguousB
	Y int
}

type taggedWins struct {
	taggedA
	taggedB
}

type choice string

func (choice) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"string","enum":["fast","slow"]}`)
}

type withProvider struct {
	Mode choice `json:"mode" jsonschema:"speed"`
}

type custom struct{}

func (custom) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type withCustom struct {
	C custom `json:"c"`
}

func TestForType(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"echo", reflect.TypeFor[echoArgs](), `{"type":"object","properties":{"text":{"type":"string","description":"the text to echo, verbatim"}},"required":["text"],"additionalProperties":false}`},
		{"scalars", reflect.TypeFor[scalars](), `{"type":"object","properties":{
			"S":{"type":"string"},"b":{"type":"boolean"},"i":{"type":"integer"},"i8":{"type":"integer"},
			"u":{"type":"integer","minimum":0},"u64":{"type":"integer","minimum":0},"F":{"type":"number"},"f32":{"type":"number"}},
			"required":["S","b","i","i8","u","u64","F"],"additionalProperties":false}`},
		{"tags", reflect.TypeFor[tags](), `{"type":"object","properties":{
			"-":{"type":"string"},"opt":{"type":"string"},"zero":{"type":"integer"},"quoted":{"type":"string"},"Plain":{"type":"string"}},
			"required":["-","quoted","Plain"],"additionalProperties":false}`},
		{"containers", reflect.TypeFor[containers](), `{"type":"object","properties":{
			"list":{"type":"array","items":{"type":"string"}},
			"fixed":{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2},
			"bytes":{"type":"string","contentEncoding":"base64"},
			"map":{"type":"object","additionalProperties":{"type":"boolean"}},
			"ptr":{"type":"integer"},
			"req":{"type":"string"},
			"any":{},
			"raw":{},
			"when":{"type":"string","format":"date-time"},
			"ip":{"type":"string"},
			"grid":{"type":"array","items":{"type":"array","items":{"type":"number"}}},
			"named":{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer","minimum":0}}}},
			"required":["list","fixed","bytes","map","req","any","raw","when","ip","grid","named"],"additionalProperties":false}`},
		{"embedded", reflect.TypeFor[withEmbedded](), `{"type":"object","properties":{
			"id":{"type":"string"},"deep":{"type":"integer"},"name":{"type":"string"},"note":{"type":"string"}},
			"required":["id","deep","name","note"],"additionalProperties":false}`},
		{"nested inline", reflect.TypeFor[nested](), `{"type":"object","properties":{
			"opts":{"type":"object","properties":{"level":{"type":"integer","description":"how hard"}},"required":["level"],"additionalProperties":false},
			"items":{"type":"array","items":{"type":"object","properties":{"deep":{"type":"integer"}},"required":["deep"],"additionalProperties":false}}},
			"required":["opts","items"],"additionalProperties":false}`},
		{"ambiguous names dropped", reflect.TypeFor[ambiguous](), `{"type":"object","properties":{"Y":{"type":"integer"}},"required":["Y"],"additionalProperties":false}`},
		{"tagged name wins", reflect.TypeFor[taggedWins](), `{"type":"object","properties":{"x":{"type":"integer"},"X":{"type":"integer"}},"required":["x","X"],"additionalProperties":false}`},
		{"provider", reflect.TypeFor[withProvider](), `{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"],"description":"speed"}},"required":["mode"],"additionalProperties":false}`},
		{"marshaler", reflect.TypeFor[withCustom](), `{"type":"object","properties":{"c":{}},"required":["c"],"additionalProperties":false}`},
		{"empty struct", reflect.TypeFor[struct{}](), `{"type":"object","additionalProperties":false}`},
		{"pointer root", reflect.TypeFor[*echoArgs](), `{"type":"object","properties":{"text":{"type":"string","description":"the text to echo, verbatim"}},"required":["text"],"additionalProperties":false}`},
		{"string", reflect.TypeFor[string](), `{"type":"string"}`},
		{"slice root", reflect.TypeFor[[]bool](), `{"type":"array","items":{"type":"boolean"}}`},
		{"interface root", reflect.TypeFor[any](), `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ForType(c.typ)
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(got))
		})
	}
}

type TagA struct {
	X int `json:"x"`
}

type TagB struct {
	X int `json:"x"`
}

func TestForTypeTaggedAmbiguity(t *testing.T) {
	// Both tagged "x" at the same depth: the name disappears, as in
	// encoding/json. Built with reflect, since vet rightly rejects it in source.
	both := reflect.StructOf([]reflect.StructField{
		{Name: "TagA", Type: reflect.TypeFor[TagA](), Anonymous: true},
		{Name: "TagB", Type: reflect.TypeFor[TagB](), Anonymous: true},
	})
	got, err := ForType(both)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","additionalProperties":false}`, string(got))
	out, err := json.Marshal(reflect.New(both).Elem().Interface())
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(out), "encoding/json agrees")
}

type Node struct {
	Value    int     `json:"value"`
	Children []*Node `json:"children,omitempty"`
}

type Tree struct {
	Root  *Node  `json:"root"`
	Label string `json:"label"`
}

type Expr struct {
	Op   string `json:"op"`
	Args []Term `json:"args,omitempty"`
}

type Term struct {
	Lit  *float64 `json:"lit,omitempty"`
	Expr *Expr    `json:"expr,omitempty"`
}

func TestForTypeRecursive(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"root recurs", reflect.TypeFor[Node](), `{"type":"object","properties":{
			"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#"}}},
			"required":["value"],"additionalProperties":false}`},
		{"nested recurs", reflect.TypeFor[Tree](), `{"type":"object","properties":{
			"root":{"$ref":"#/$defs/Node"},"label":{"type":"string"}},
			"required":["root","label"],"additionalProperties":false,
			"$defs":{"Node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["value"],"additionalProperties":false}}}`},
		{"mutual", reflect.TypeFor[[]Expr](), `{"type":"array","items":{"$ref":"#/$defs/Expr"},
			"$defs":{"Expr":{"type":"object","properties":{"op":{"type":"string"},
				"args":{"type":"array","items":{"type":"object","properties":{"lit":{"type":"number"},"expr":{"$ref":"#/$defs/Expr"}},"additionalProperties":false}}},
				"required":["op"],"additionalProperties":false}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ForType(c.typ)
			require.NoError(t, err)
			assert.JSONEq(t, c.want, string(got))
			// The result must compile and validate a sample.
			v, err := Compile(got)
			require.NoError(t, err)
			_ = v
		})
	}
	v, err := Compile(mustFor[Tree](t))
	require.NoError(t, err)
	assert.NoError(t, v.ValidateJSON([]byte(`{"label":"x","root":{"value":1,"children":[{"value":2}]}}`)))
	assert.EqualError(t, v.ValidateJSON([]byte(`{"label":"x","root":{"value":1,"children":[{"value":"two"}]}}`)),
		`argument "/root/children/0/value": must be integer (type)`)
}

func mustFor[T any](t *testing.T) json.RawMessage {
	t.Helper()
	s, err := For[T]()
	require.NoError(t, err)
	return s
}

func TestForTypeDeterministic(t *testing.T) {
	first := mustFor[containers](t)
	for range 20 {
		assert.Equal(t, string(first), string(mustFor[containers](t)))
	}
	// Key order follows the struct, not the alphabet.
	assert.Regexp(t, `^\{"type":"object","properties":\{"list":.*"named":`, string(first))
}

func TestForTypeErrors(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	type deep struct {
		Inner struct {
			Items []struct {
				F func() `json:"f"`
			} `json:"items"`
		} `json:"inner"`
	}
	type badMap struct {
		M map[int]string `json:"m"`
	}
	type cplx struct {
		Base
		Z complex128
	}
	cases := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"chan", reflect.TypeFor[withChan](), `schema: withChan.C: unsupported type chan int`},
		{"func path", reflect.TypeFor[deep](), `schema: deep.Inner.Items[].F: unsupported type func()`},
		{"map key", reflect.TypeFor[badMap](), `schema: badMap.M: unsupported type map[int]string: map keys must be strings`},
		{"complex", reflect.TypeFor[cplx](), `schema: cplx.Z: unsupported type complex128`},
		{"root func", reflect.TypeFor[func()](), `schema: func(): unsupported type func()`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ForType(c.typ)
			assert.EqualError(t, err, c.want)
		})
	}
	_, err := ForType(nil)
	assert.Error(t, err)
}

func TestForInput(t *testing.T) {
	s, err := ForInput[echoArgs]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string","description":"the text to echo, verbatim"}},"required":["text"],"additionalProperties":false}`, string(s))

	s, err = ForInput[map[string]int]()
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","additionalProperties":{"type":"integer"}}`, string(s))

	s, err = ForInput[struct{}]()
	require.NoError(t, err)
	assert.JSONEq(t, string(EmptyObject), string(s))

	for _, f := range []func() (json.RawMessage, error){ForInput[string], ForInput[[]int], ForInput[any], ForInput[choice]} {
		_, err := f()
		assert.ErrorContains(t, err, "root of an input schema must be an object")
	}
}

func TestEmptyObjectCompiles(t *testing.T) {
	v, err := Compile(EmptyObject)
	require.NoError(t, err)
	assert.NoError(t, v.ValidateJSON([]byte(`{}`)))
	assert.EqualError(t, v.ValidateJSON([]byte(`{"x":1}`)), `unexpected argument "x" (additionalProperties)`)
}
