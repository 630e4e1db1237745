package model

// The copying helpers every kind's DeepCopy is made of. Slices and maps of
// plain values are copied with slices.Clone and maps.Clone, which keep a
// nil one nil, as deepcopy-gen's generated code does.

// clonePtr returns a new pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneEach returns a copy of s whose elements are copied by copyInto
// (usually a DeepCopyInto method expression), or nil for nil.
func cloneEach[T any](s []T, copyInto func(in, out *T)) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i := range s {
		copyInto(&s[i], &out[i])
	}
	return out
}
