package fidelity_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/internal/fidelity"
)

// TestDefaultsMatchReal: every modelled default is the real one. Changing
// a constant of the node packages, or a Real of the table, without the
// other fails here, naming the entry and the real source.
func TestDefaultsMatchReal(t *testing.T) {
	for _, e := range fidelity.Defaults() {
		t.Run(e.Layer+"/"+e.Name, func(t *testing.T) {
			assert.Equal(t, e.Real, e.Got(), "%s: kubesim's %s is %s, the real value is %s (%s)", e.Name, e.Where, e.Got(), e.Real, e.Source)
		})
	}
}

// TestTableComplete: every entry and divergence says what it is, where
// it comes from and where kubesim has it, and no name is used twice.
func TestTableComplete(t *testing.T) {
	names := map[string]bool{}
	for _, e := range fidelity.Defaults() {
		for field, v := range map[string]string{"Layer": e.Layer, "Name": e.Name, "Real": e.Real, "Source": e.Source, "Where": e.Where} {
			assert.NotEmpty(t, v, "%s: %s is empty", e.Name, field)
		}
		assert.False(t, names[e.Name], "%s: listed twice", e.Name)
		names[e.Name] = true
	}
	require.NotEmpty(t, fidelity.Divergences())
	for _, d := range fidelity.Divergences() {
		for field, v := range map[string]string{"Name": d.Name, "Kubesim": d.Kubesim, "Real": d.Real, "Consequence": d.Consequence, "Where": d.Where} {
			assert.NotEmpty(t, v, "%s: %s is empty", d.Name, field)
		}
	}
}

// TestFormat: durations print in their largest whole unit, numbers in
// their shortest form.
func TestFormat(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{100 * time.Millisecond, "100 ms"},
		{75 * time.Second, "75 s"},
		{5 * time.Minute, "5 min"},
		{time.Duration(0), "0"},
		{0.25, "0.25"},
		{2.0, "2"},
		{int32(10), "10"},
		{true, "true"},
		{"25%", "25%"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, fidelity.Format(c.in))
	}
}
