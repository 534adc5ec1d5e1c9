package schema

import (
	"reflect"
	"slices"
	"strings"
)

// field is one JSON property of a struct, found the way encoding/json finds it.
type field struct {
	name     string       // JSON property name
	goPath   string       // Go selector path, for error messages
	index    []int        // field index sequence, for ordering
	typ      reflect.Type // field type
	tagged   bool         // the json tag gave the name
	omit     bool         // omitempty or omitzero: not required
	asString bool         // the ",string" option
	desc     string       // the jsonschema tag
}

// structFields lists the JSON properties of struct type t in encoding/json's
// order, flattening embedded structs. A name present at several depths goes
// to the shallowest field; several fields at that depth keep the one with a
// json tag, or drop the name when that is still ambiguous.
func structFields(t reflect.Type) []field {
	type embedded struct {
		typ    reflect.Type
		index  []int
		goPath string
	}
	var all []field
	expanded := map[reflect.Type]bool{}
	level := []embedded{{typ: t}}
	for len(level) > 0 {
		var next []embedded
		seenHere := map[reflect.Type]bool{}
		for _, e := range level {
			if expanded[e.typ] {
				continue
			}
			seenHere[e.typ] = true
			for i := range e.typ.NumField() {
				sf := e.typ.Field(i)
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(slices.Clip(e.index), i)
				goPath := sf.Name
				if e.goPath != "" {
					goPath = e.goPath + "." + sf.Name
				}
				if sf.Anonymous {
					base := sf.Type
					if base.Kind() == reflect.Pointer {
						base = base.Elem()
					}
					if !sf.IsExported() && base.Kind() != reflect.Struct {
						continue
					}
					if name == "" && base.Kind() == reflect.Struct {
						next = append(next, embedded{base, index, goPath})
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				f := field{name: name, goPath: goPath, index: index, typ: sf.Type, tagged: name != ""}
				if name == "" {
					f.name = sf.Name
				}
				for o := range strings.SplitSeq(opts, ",") {
					switch o {
					case "omitempty", "omitzero":
						f.omit = true
					case "string":
						f.asString = true
					}
				}
				f.desc = sf.Tag.Get("jsonschema")
				all = append(all, f)
			}
		}
		for typ := range seenHere {
			expanded[typ] = true
		}
		level = next
	}
	return dominant(all)
}

// dominant keeps, for each name, the field that encoding/json would use, and
// returns them in field-index order.
func dominant(all []field) []field {
	byName := map[string][]field{}
	var names []string
	for _, f := range all {
		if _, ok := byName[f.name]; !ok {
			names = append(names, f.name)
		}
		byName[f.name] = append(byName[f.name], f)
	}
	var out []field
	for _, name := range names {
		fs := byName[name]
		depth := len(fs[0].index)
		for _, f := range fs {
			depth = min(depth, len(f.index))
		}
		var top, tagged []field
		for _, f := range fs {
			if len(f.index) == depth {
				top = append(top, f)
				if f.tagged {
					tagged = append(tagged, f)
				}
			}
		}
		switch {
		case len(top) == 1:
			out = append(out, top[0])
		case len(tagged) == 1:
			out = append(out, tagged[0])
		}
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}
