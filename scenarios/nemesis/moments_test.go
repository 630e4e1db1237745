package nemesis_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/scenarios/nemesis"
	"github.com/kubesim/kubesim/sim"
)

// TestMoments: every moment's example is a triggered fault that prints
// back as written, and Aim puts the moment's trigger on any fault.
func TestMoments(t *testing.T) {
	require.NotEmpty(t, nemesis.Moments())
	for _, m := range nemesis.Moments() {
		f, err := sim.ParseFault(m.Example)
		require.NoError(t, err, m.Name)
		require.NotNil(t, f.On, m.Name)
		assert.Equal(t, m.Example, f.String(), m.Name)
		got, err := nemesis.LookupMoment(m.Name)
		require.NoError(t, err)
		assert.Equal(t, m, got)
		aimed := m.Aim(sim.Fault{At: 10 * time.Second, Kind: sim.FaultPause, Targets: [][]string{{"etcd-1"}}, For: time.Second}, 2)
		require.NoError(t, aimed.Validate(), m.Name)
		on := m.Trigger()
		on.Times = 2
		assert.Equal(t, &on, aimed.On, m.Name)
		assert.Equal(t, 10*time.Second, aimed.At)
	}
	_, err := nemesis.LookupMoment("lunch")
	assert.ErrorContains(t, err, `unknown moment "lunch" (want one of leader-elected, learner-present`)
}

// TestMomentsProfile: the opt-in moments profile aims its moment's example
// fault at it, disarmed while a fault it fires can still end before the
// settle window, and refuses a moment or a count it does not know.
func TestMomentsProfile(t *testing.T) {
	p, err := nemesis.ParseProfile("moments:moment=rollout-started,times=02")
	require.NoError(t, err)
	assert.Equal(t, "moments:moment=rollout-started,times=2", p.String())
	s := p.Schedule(nil, sim.NewStream(1, "x"), 100*time.Second)
	require.Len(t, s, 1)
	assert.Equal(t, "0s on api.admit resource=replicasets verb=create until 1m29s within 1s times 2: crash controller-manager-leader for 10s", s[0].String())
	assert.Empty(t, p.Schedule(nil, sim.NewStream(1, "x"), 11*time.Second), "no time to fire and end")
	d, err := nemesis.ParseProfile("moments")
	require.NoError(t, err)
	assert.Equal(t, "moments:moment=leader-elected,times=3", d.String())
	_, err = nemesis.ParseProfile("moments:moment=lunch")
	assert.ErrorContains(t, err, `fault profile moments: unknown moment "lunch"`)
	_, err = nemesis.ParseProfile("moments:times=0")
	assert.ErrorContains(t, err, `times="0" is not a whole number from 1 to 100`)
}
