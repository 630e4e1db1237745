package checks

import "testing"

// TestGetOrNew checks that getOrNew makes a key's record once and hands the same
// one back after, and that it makes one again where the map holds nil.
func TestGetOrNew(t *testing.T) {
	m := map[string]*int{"nil": nil}
	made := 0
	mk := func() *int { made++; v := made; return &v }
	a := getOrNew(m, "a", mk)
	if again := getOrNew(m, "a", mk); again != a || made != 1 || *a != 1 {
		t.Fatalf("getOrNew(a) twice: %p then %p, made %d", a, again, made)
	}
	if n := getOrNew(m, "nil", mk); n == nil || m["nil"] != n || made != 2 {
		t.Fatalf("getOrNew(nil) = %v, map holds %v, made %d", n, m["nil"], made)
	}
}
