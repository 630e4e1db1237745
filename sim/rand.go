package sim

import "math/rand/v2"

// Stream is a named, seeded random source. Each component draws from its own
// stream, derived from the world's seed and the stream's name, so that one
// component drawing more numbers never shifts what another draws.
type Stream = rand.Rand

// Rand returns the stream called name, creating it on first use. Calling it
// twice with one name returns the same stream.
func (w *World) Rand(name string) *Stream {
	if s, ok := w.streams[name]; ok {
		return s
	}
	s := NewStream(w.seed, name)
	w.streams[name] = s
	return s
}

// NewStream derives a PCG generator from (seed, name). It is exported so that
// pure cores and tests can make the same streams without a World.
func NewStream(seed uint64, name string) *Stream {
	return rand.New(rand.NewPCG(seed, hashString(fnvOffset, name)))
}

// Jitter returns base plus a uniform draw in [0, jitter) from s.
func Jitter(s *Stream, base, jitter int64) int64 {
	if jitter <= 0 {
		return base
	}
	return base + s.Int64N(jitter)
}
