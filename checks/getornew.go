package checks

// getOrNew returns m[k], first storing a new value from mk there if k has
// none: the record a check keeps per object, pod, informer or member,
// made the first time the trace names it.
func getOrNew[K comparable, V any](m map[K]*V, k K, mk func() *V) *V {
	v := m[k]
	if v == nil {
		v = mk()
		m[k] = v
	}
	return v
}
