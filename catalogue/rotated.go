package catalogue

// rotated returns s rotated left by k: the etcd endpoints the operators
// give the k-th API server (from 0), which starts on a different member
// than its neighbours, as package scenarios builds them.
func rotated[T any](s []T, k int) []T {
	out := make([]T, 0, len(s))
	for j := range s {
		out = append(out, s[(k+j)%len(s)])
	}
	return out
}
