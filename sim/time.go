package sim

import (
	"strconv"
	"time"
)

// Time is a virtual instant in nanoseconds since the world began. It is never
// read from the wall clock.
type Time int64

// Add returns t shifted by d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the virtual duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Seconds returns t in seconds, for metrics and plots.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String formats t as seconds with microsecond precision, e.g. "12.000345s",
// so that timelines sort and align.
func (t Time) String() string { return string(t.AppendText(nil)) }

// AppendText appends the String form of t to b without allocating.
func (t Time) AppendText(b []byte) []byte {
	neg := t < 0
	if neg {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t)/1e9, 10)
	b = append(b, '.')
	frac := (int64(t) % 1e9) / 1e3
	for div := int64(1e5); div > 0; div /= 10 {
		b = append(b, byte('0'+frac/div%10))
	}
	return append(b, 's')
}
