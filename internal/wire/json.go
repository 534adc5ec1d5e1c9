package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxDepth bounds the nesting the harness decodes, so a runaway server
// output fails the test instead of exhausting the stack.
const maxDepth = 512

// decode parses one JSON text strictly: numbers stay json.Number, a
// duplicate object key or trailing data is an error.
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func decodeValue(d *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d", maxDepth)
	}
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return decodeObject(d, depth)
	case json.Delim('['):
		arr := []any{}
		for d.More() {
			v, err := decodeValue(d, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := d.Token() // ']'
		return arr, err
	}
	return tok, nil
}

func decodeObject(d *json.Decoder, depth int) (any, error) {
	obj := map[string]any{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // the decoder only yields string keys here
		if _, dup := obj[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		if obj[key], err = decodeValue(d, depth+1); err != nil {
			return nil, err
		}
	}
	_, err := d.Token() // '}'
	return obj, err
}
