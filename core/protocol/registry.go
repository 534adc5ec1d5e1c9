package protocol

import (
	"fmt"
	"slices"

	"github.com/polymcp/polymcp/core/spec"
)

// Registry holds the dialects a server speaks. It is immutable.
type Registry struct {
	byRev  map[string]Dialect
	legacy []string // supported legacy revisions, oldest first
	modern []string // supported modern revisions, oldest first
}

// NewRegistry builds the dialects of the named revisions (all of them when
// none are named), checking each revision's catalogue.
func NewRegistry(revisions ...string) (*Registry, error) {
	if len(revisions) == 0 {
		revisions = spec.Revisions
	}
	r := &Registry{byRev: make(map[string]Dialect)}
	for i, rev := range spec.Revisions {
		if !slices.Contains(revisions, rev) {
			continue
		}
		cat, err := buildCatalogue(uint8(1) << i)
		if err != nil {
			return nil, err
		}
		if rev == spec.Rev20260728 {
			r.byRev[rev] = &modern{rev: rev, cat: cat}
			r.modern = append(r.modern, rev)
		} else {
			r.byRev[rev] = &legacy{rev: rev, cat: cat, downgrades: rev < spec.Rev20250618}
			r.legacy = append(r.legacy, rev)
		}
	}
	for _, rev := range revisions {
		if _, ok := r.byRev[rev]; !ok {
			return nil, fmt.Errorf("protocol: unknown revision %q", rev)
		}
	}
	return r, nil
}

// Lookup returns the dialect of a revision the registry serves.
func (r *Registry) Lookup(rev string) (Dialect, bool) {
	d, ok := r.byRev[rev]
	return d, ok
}

// Negotiate answers initialize's version question: the requested revision
// when it is a served legacy one, else the newest served legacy revision.
// ok is false when no legacy revision is served at all.
func (r *Registry) Negotiate(requested string) (d Dialect, ok bool) {
	if d, ok := r.byRev[requested]; ok && d.Era() == Legacy {
		return d, true
	}
	if len(r.legacy) == 0 {
		return nil, false
	}
	return r.byRev[r.legacy[len(r.legacy)-1]], true
}

// Modern returns the served modern revisions, oldest first.
func (r *Registry) Modern() []string { return slices.Clone(r.modern) }

// Legacy returns the served legacy revisions, oldest first.
func (r *Registry) Legacy() []string { return slices.Clone(r.legacy) }

// Supported returns every served revision, oldest first.
func (r *Registry) Supported() []string { return append(r.Legacy(), r.modern...) }
