package defaults

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	for _, tc := range []struct{ in, want time.Duration }{
		{0, time.Second}, {-1, time.Second}, {time.Millisecond, time.Millisecond},
	} {
		v := tc.in
		Positive(&v, time.Second)
		if v != tc.want {
			t.Errorf("Positive(%v) = %v, want %v", tc.in, v, tc.want)
		}
	}
	var n uint64
	Positive(&n, 7)
	if n != 7 {
		t.Errorf("Positive(uint64 0) = %d, want 7", n)
	}
	r := 0.5
	Positive(&r, 0.1)
	if r != 0.5 {
		t.Errorf("Positive(0.5) = %v, want 0.5", r)
	}
}
