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

// storedKind is the pointer type of a stored kind, which copies the fields
// of its own that hold references (all but its TypeMeta and ObjectMeta)
// into a shallow copy of itself: the part of DeepCopy that differs by kind.
type storedKind[T any] interface {
	*T
	Object
	copyRefsInto(out *T)
}

// deepCopy returns a copy of in that shares no memory with it, or nil for
// nil: the struct itself, its ObjectMeta, then the kind's own references.
// It is every kind's DeepCopy.
func deepCopy[T any, P storedKind[T]](in P) P {
	if in == nil {
		return nil
	}
	out := P(new(T))
	*out = *in
	in.GetObjectMeta().DeepCopyInto(out.GetObjectMeta())
	in.copyRefsInto(out)
	return out
}
