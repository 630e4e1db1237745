package model

import (
	"strconv"
	"time"
)

// Time is a virtual instant: nanoseconds since the simulated world began. It
// plays the part of metav1.Time and metav1.MicroTime. Unlike Kubernetes,
// which truncates metav1.Time to whole seconds on the wire, kubesim keeps the
// full virtual-nanosecond precision in storage, so a value round-trips
// exactly.
type Time int64

// MicroTime is Lease's timestamp type (metav1.MicroTime in Kubernetes). In
// kubesim it is the same virtual Time.
type MicroTime = Time

// Add returns t shifted by d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the virtual duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Before reports whether t is before u.
func (t Time) Before(u Time) bool { return t < u }

// After reports whether t is after u.
func (t Time) After(u Time) bool { return t > u }

// Seconds returns t in seconds since the world began.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t as seconds since the world began with nanosecond
// precision, e.g. "12.000345000s".
func (t Time) String() string {
	neg := t < 0
	if neg {
		t = -t
	}
	frac := strconv.FormatInt(int64(t)%1e9, 10)
	for len(frac) < 9 {
		frac = "0" + frac
	}
	s := strconv.FormatInt(int64(t)/1e9, 10) + "." + frac + "s"
	if neg {
		return "-" + s
	}
	return s
}

// Ptr returns a pointer to a copy of v, like k8s.io/utils/ptr.To; handy for
// the many optional (pointer) fields of the API types.
func Ptr[T any](v T) *T { return &v }

// Deref returns *p, or def when p is nil, like k8s.io/utils/ptr.Deref.
func Deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
