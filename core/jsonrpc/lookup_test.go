package jsonrpc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMembers(t *testing.T) {
	names := []string{"name", "arguments", "_meta"}
	for _, tc := range []struct {
		obj  string
		ok   bool
		once bool      // MembersOnce: no name comes twice
		want [3]string // "" for absent
	}{
		{`{"name":"echo","arguments":{"text":"a,b}"},"_meta":{"name":"x"}}`, true, true,
			[3]string{`"echo"`, `{"text":"a,b}"}`, `{"name":"x"}`}},
		{` { "_meta" : [1, {"arguments":2}] , "other" : null } `, true, true, [3]string{"", "", `[1, {"arguments":2}]`}},
		{`{"na\u006de":"escaped key","name":"second"}`, true, false, [3]string{`"escaped key"`, "", ""}},
		{`{"arguments":1,"arguments":2}`, true, false, [3]string{"", "1", ""}},
		{`{"name":1,"arguments":2,"_meta":3,"x":4,"name":5}`, true, false, [3]string{"1", "2", "3"}},
		{`{"name":1,"arguments":2,"_meta":3,"x":4,"y":{"name":5}}`, true, true, [3]string{"1", "2", "3"}},
		{`{"text":"\"name\":1","name":-1.5e3}`, true, true, [3]string{"-1.5e3", "", ""}},
		{`{"NAME":1,"name":2}`, true, false, [3]string{"2", "", ""}}, // a decoder may match NAME
		{`{"_meta":1,"Key":2}`, true, false, [3]string{"", "", "1"}}, // the Kelvin sign may fold to k
		{`{"Other":1,"nam":2,"names":3}`, true, true, [3]string{}},
		{`{}`, true, true, [3]string{}},
		{`[{"name":1}]`, false, false, [3]string{}},
		{``, false, false, [3]string{}},
	} {
		t.Run(tc.obj, func(t *testing.T) {
			vals := make([][]byte, len(names))
			require.Equal(t, tc.ok, Members([]byte(tc.obj), names, vals))
			whole := make([][]byte, len(names))
			assert.Equal(t, tc.once, MembersOnce([]byte(tc.obj), names, whole))
			if tc.once {
				assert.Equal(t, vals, whole, "the same members")
			}
			for i, name := range names {
				assert.Equal(t, tc.want[i], string(vals[i]), name)
				one, present := Member([]byte(tc.obj), name)
				assert.Equal(t, tc.want[i] != "", present, name)
				assert.Equal(t, tc.want[i], string(one), name)
			}
		})
	}
}

func TestStringValue(t *testing.T) {
	got, err := StringValue([]byte(`"a\nb"`), "name")
	require.NoError(t, err)
	assert.Equal(t, "a\nb", got)
	_, err = StringValue([]byte(`12`), "name")
	var te *TypeError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, []string{"name"}, te.Path)
}

func TestPlainString(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		ok        bool
	}{
		{`"2026-07-28"`, "2026-07-28", true},
		{`""`, "", true},
		{`"a\u0062"`, "", false}, // escaped: the decoder's business
		{`12`, "", false},
		{`null`, "", false},
	} {
		got, ok := PlainString([]byte(tc.raw))
		assert.Equal(t, tc.ok, ok, tc.raw)
		assert.Equal(t, tc.want, got, tc.raw)
	}
}
