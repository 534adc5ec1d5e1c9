package router

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/polymcp/polymcp/core/spec"
)

func TestRequestMeta(t *testing.T) {
	cases := []struct {
		name string
		req  *Request
		want spec.Meta
	}{
		{"nil request", nil, nil},
		{"no _meta", &Request{}, nil},
		{"decoded", &Request{RawMeta: []byte(`{"progressToken":7,"io.example/x":{"a":[true]}}`)},
			spec.Meta{"progressToken": float64(7), "io.example/x": map[string]any{"a": []any{true}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.req.Meta())
		})
	}
}
