package checks

import "testing"

// TestWriteTally checks how count files answers, the bounds they give, and
// that firstAck keeps the first acknowledgement under a key.
func TestWriteTally(t *testing.T) {
	var w writeTally
	for _, tc := range []struct {
		code  int
		acked bool
	}{{200, true}, {201, true}, {0, false}, {500, false}, {503, false}, {409, false}} {
		if got := w.count(tc.code); got != tc.acked {
			t.Errorf("count(%d) = %v, want %v", tc.code, got, tc.acked)
		}
	}
	if want := (writeTally{acked: 2, unknown: 2, failed: 2}); w != want || w.writes() != 6 {
		t.Fatalf("tally = %+v (%d writes), want %+v", w, w.writes(), want)
	}
	if lo, hi := w.bounds(10); lo != 12 || hi != 14 {
		t.Errorf("bounds(10) = %d, %d, want 12, 14", lo, hi)
	}
	var sum writeTally
	sum.add(w)
	sum.add(w)
	if sum.writes() != 12 || sum.acked != 4 {
		t.Errorf("sum = %+v", sum)
	}
	acks := map[string]ackRef{}
	a, b := ackRef{client: "a", op: 1}, ackRef{client: "b", op: 2}
	if _, dup := firstAck(acks, "rv5", a); dup {
		t.Fatal("first ack under rv5 reported as a duplicate")
	}
	if prev, dup := firstAck(acks, "rv5", b); !dup || prev != a || acks["rv5"] != a {
		t.Errorf("second ack under rv5: prev %+v dup %v, kept %+v; want %+v kept", prev, dup, acks["rv5"], a)
	}
}
