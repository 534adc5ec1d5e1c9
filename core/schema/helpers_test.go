package schema

import (
	"bytes"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func decode(s string) (any, error) { return jsonschema.UnmarshalJSON(bytes.NewReader([]byte(s))) }
