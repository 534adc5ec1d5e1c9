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
		want [3]string // "" for absent
	}{
		{`{"name":"echo","arguments":{"text":"a,b}"},"_meta":{"name":"x"}}`, true,
			[3]string{`"echo"`, `{"text":"a,b}"}`, `{"name":"x"}`}},
		{` { "_meta" : [1, {"arguments":2}] , "other" : null } `, true, [3]string{"", "", `[1, {"arguments":2}]`}},
		{`{"na\u006de":"escaped key","name":"second"}`, true, [3]string{`"escaped key"`, "", ""}},
		{`{"arguments":1,"arguments":2}`, true, [3]string{"", "1", ""}},
		{`{"text":"\"name\":1","name":-1.5e3}`, true, [3]string{"-1.5e3", "", ""}},
		{`{}`, true, [3]string{}},
		{`[{"name":1}]`, false, [3]string{}},
		{``, false, [3]string{}},
	} {
		t.Run(tc.obj, func(t *testing.T) {
			vals := make([][]byte, len(names))
			require.Equal(t, tc.ok, Members([]byte(tc.obj), names, vals))
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
